import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import type { DB } from '../../database';

/** A witness's cosignature of a checkpoint, as stored. */
export interface StoredCosignature {
  witnessKey: string;
  signature: string;
  cosignedAt: number;
}

/** A checkpoint with the cosignatures of the witnesses asked for. */
export interface CosignedCheckpoint {
  treeSize: number;
  note: string;
  cosignatures: StoredCosignature[];
}

/** The checkpoints sent to the witnesses and the cosignatures they returned (migration 015). */
@Injectable()
export class WitnessRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Keeps the note signed for `treeSize`; the first one kept stays (every instance signs the same bytes). */
  async recordCheckpoint(treeSize: number, note: string): Promise<void> {
    await this.db
      .insertInto('audit_witnessed_checkpoints')
      .values({ tree_size: treeSize, note })
      .onConflict((conflict) => conflict.column('tree_size').doNothing())
      .execute();
  }

  /** Keeps the witness's cosignature of the checkpoint of `treeSize`, in place of an older one of it. */
  async storeCosignature(treeSize: number, { witnessKey, signature, cosignedAt }: StoredCosignature): Promise<void> {
    await this.db
      .insertInto('audit_cosignatures')
      .values({ tree_size: treeSize, witness_key: witnessKey, signature, cosigned_at: cosignedAt })
      .onConflict((conflict) =>
        conflict
          .columns(['tree_size', 'witness_key'])
          .doUpdateSet({ signature, cosigned_at: cosignedAt })
          .where('audit_cosignatures.cosigned_at', '<', cosignedAt),
      )
      .execute();
  }

  /** The largest tree size each witness has cosigned, by its key. */
  async findCosignedSizes(): Promise<Map<string, number>> {
    const rows = await this.db.selectFrom('audit_cosignatures').select((eb) => ['witness_key', eb.fn.max('tree_size').as('tree_size')]).groupBy('witness_key').execute();
    return new Map(rows.map((row) => [row.witness_key, Number(row.tree_size)]));
  }

  /** The largest checkpoint that at least `quorum` of these witnesses cosigned, with their cosignatures; undefined when none did. */
  async findLatestWithQuorum(witnessKeys: string[], quorum: number): Promise<CosignedCheckpoint | undefined> {
    const latest = await this.db
      .selectFrom('audit_cosignatures')
      .select('tree_size')
      .where('witness_key', 'in', witnessKeys)
      .groupBy('tree_size')
      .having((eb) => eb.fn.countAll(), '>=', quorum)
      .orderBy('tree_size', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!latest) {
      return undefined;
    }
    const [checkpoint, cosignatures] = await Promise.all([
      this.db.selectFrom('audit_witnessed_checkpoints').select('note').where('tree_size', '=', latest.tree_size).executeTakeFirstOrThrow(),
      this.db
        .selectFrom('audit_cosignatures')
        .select(['witness_key', 'signature', 'cosigned_at'])
        .where('tree_size', '=', latest.tree_size)
        .where('witness_key', 'in', witnessKeys)
        .orderBy('witness_key')
        .execute(),
    ]);
    return {
      treeSize: Number(latest.tree_size),
      note: checkpoint.note,
      cosignatures: cosignatures.map((row) => ({ witnessKey: row.witness_key, signature: row.signature, cosignedAt: Number(row.cosigned_at) })),
    };
  }
}
