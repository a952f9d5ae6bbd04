import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import type { DB, Sector, VesselRow } from '../database';

const UPSERT_BATCH = 500;

@Injectable()
export class FleetRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async findPage(sector: Sector | undefined, limit: number, offset: number): Promise<{ rows: VesselRow[]; total: number }> {
    const query = sector ? this.db.selectFrom('vessels').where('sector', '=', sector) : this.db.selectFrom('vessels');
    const [rows, { total }] = await Promise.all([
      query.selectAll().orderBy('id').limit(limit).offset(offset).execute(),
      query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total) };
  }

  async count(): Promise<number> {
    const { total } = await this.db
      .selectFrom('vessels')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow();
    return Number(total);
  }

  async upsertMany(vessels: VesselRow[], executor: Kysely<DB> = this.db): Promise<void> {
    for (let start = 0; start < vessels.length; start += UPSERT_BATCH) {
      await executor
        .insertInto('vessels')
        .values(vessels.slice(start, start + UPSERT_BATCH))
        .onConflict((conflict) =>
          conflict.column('id').doUpdateSet((eb) => ({
            name: eb.ref('excluded.name'),
            class: eb.ref('excluded.class'),
            length: eb.ref('excluded.length'),
            crew: eb.ref('excluded.crew'),
            commander: eb.ref('excluded.commander'),
            sector: eb.ref('excluded.sector'),
            status: eb.ref('excluded.status'),
          })),
        )
        .execute();
    }
  }
}
