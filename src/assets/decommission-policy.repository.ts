import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import { databaseClock, databaseStatementClock, type DB, type DecommissionPolicyTable, lockOutReaders } from '../database';

export type DecommissionPolicyName = DecommissionPolicyTable['policy'];

/** The database's one decommission approval policy (migration 010), dated by the database's clock. */
@Injectable()
export class DecommissionPolicyRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async find(executor: Kysely<DB> = this.db): Promise<DecommissionPolicyName | undefined> {
    const row = await executor.selectFrom('decommission_policy').select('policy').where('id', '=', 1).executeTakeFirst();
    return row?.policy;
  }

  /** Writes `policy` if the database has none yet (the first instance to start); returns the policy in force. */
  async adopt(policy: DecommissionPolicyName): Promise<DecommissionPolicyName> {
    await this.db
      .insertInto('decommission_policy')
      .values({ id: 1, policy, since: databaseClock(this.db) })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
    return (await this.find()) ?? policy;
  }

  /**
   * Sets the policy, dated now unless it already was the policy; returns the one it replaced, if any.
   * Commits only once every decision that read the policy it replaces has ended, and decisions that read
   * it meanwhile wait for the new one (decisions read it in their own transaction: DecommissionPolicy).
   */
  change(policy: DecommissionPolicyName): Promise<DecommissionPolicyName | undefined> {
    return this.db.transaction().execute(async (trx) => {
      await lockOutReaders(trx, 'decommission_policy');
      const previous = await trx.selectFrom('decommission_policy').select('policy').where('id', '=', 1).executeTakeFirst();
      if (previous?.policy !== policy) {
        // Dated once the decisions under the old policy have ended: audit:verify holds every decision dated from then on to the new one.
        const since = databaseStatementClock(trx);
        await trx
          .insertInto('decommission_policy')
          .values({ id: 1, policy, since })
          .onConflict((conflict) => conflict.column('id').doUpdateSet({ policy, since }))
          .execute();
      }
      return previous?.policy;
    });
  }
}
