import { Injectable } from '@nestjs/common';
import { Kysely, sql } from 'kysely';
import { type DB, type DecommissionRequestKind, type DecommissionRequestState, serializeWithin } from '../database';
import { type AssetRecord, isStillRecord } from './assets.repository';

/** What the API shows of a decommission request, in the order it shows it. */
export const DECOMMISSION_REQUEST_COLUMNS = [
  'request_id',
  'asset_id',
  'kind',
  'state',
  'requested_by',
  'authorized_by',
  'reason',
  'created_at',
  'expires_at',
  'decided_at',
  'decided_by',
] as const;

export interface NewDecommissionRequest {
  requestId: string;
  assetId: string;
  kind: DecommissionRequestKind;
  requestedBy: string;
  authorizedBy: string;
  reason: string;
  createdAt: string;
  expiresAt: string;
}

/** A pending request's decision: who took it, when, and the state it ends in. */
export interface RequestDecision {
  requestId: string;
  /** The officer taking it: the one the request names (authorized_by to approve or reject, requested_by to withdraw), or for a rejection an officer who may reject any. */
  officer: string;
  decidedAt: string;
}

/** The status an asset must have for a request of each kind: a decommission retires an active asset, a recommission brings back a retired one. */
export const ASSET_STATUS_FOR: Record<DecommissionRequestKind, 'active' | 'decommissioned'> = { decommission: 'active', recommission: 'decommissioned' };

/** An officer's pending, unexpired requests: how many, and when the oldest of them expires. */
export interface PendingOfRequester {
  count: number;
  firstExpiry: string | null;
}

/** Each field narrows the listing. */
export interface DecommissionRequestFilter {
  state?: DecommissionRequestState;
  asset_id?: string;
  authorized_by?: string;
}

@Injectable()
export class DecommissionRequestsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * Opens a request for an asset whose status its kind needs (active for a decommission, decommissioned
   * for a recommission), in one statement: nothing when the asset is absent or has another status, or
   * when it already has a pending request (the partial unique index refuses it, so two instances racing
   * open one). With `expected` (an If-Match's record), only while the asset is still that record.
   */
  open(trx: Kysely<DB>, values: NewDecommissionRequest, expected?: AssetRecord) {
    return trx
      .insertInto('decommission_requests')
      .columns(['request_id', 'asset_id', 'kind', 'state', 'requested_by', 'authorized_by', 'reason', 'created_at', 'expires_at'])
      .expression((eb) =>
        eb
          .selectFrom('assets')
          .select([
            eb.val(values.requestId).as('request_id'),
            'asset_id',
            eb.val(values.kind).as('kind'),
            sql.lit('pending').as('state'),
            eb.val(values.requestedBy).as('requested_by'),
            eb.val(values.authorizedBy).as('authorized_by'),
            eb.val(values.reason).as('reason'),
            eb.val(values.createdAt).as('created_at'),
            eb.val(values.expiresAt).as('expires_at'),
          ])
          .where('asset_id', '=', values.assetId)
          .where('status', '=', ASSET_STATUS_FOR[values.kind])
          .$if(expected !== undefined, (assets) => assets.where(isStillRecord(expected as AssetRecord))),
      )
      .onConflict((conflict) => conflict.doNothing())
      .returning(DECOMMISSION_REQUEST_COLUMNS)
      .executeTakeFirst();
  }

  /** Approves a pending, unexpired request named to `officer`: of racing decisions exactly one sees it pending. */
  approve(trx: Kysely<DB>, values: RequestDecision) {
    return this.decide(trx, 'approved', values).where('authorized_by', '=', values.officer).executeTakeFirst();
  }

  /** `byOverseer`: an officer of the clearance that may reject any request (docs/api.md#two-officers-for-a-decommission), named in it or not. */
  reject(trx: Kysely<DB>, values: RequestDecision, byOverseer: boolean) {
    return this.decide(trx, 'rejected', values)
      .$if(!byOverseer, (update) => update.where('authorized_by', '=', values.officer))
      .executeTakeFirst();
  }

  withdraw(trx: Kysely<DB>, values: RequestDecision) {
    return this.decide(trx, 'withdrawn', values).where('requested_by', '=', values.officer).executeTakeFirst();
  }

  /** Marks a pending request past its expiry as expired, once: it expired at expires_at, decided by no one. */
  expire(trx: Kysely<DB>, values: { requestId: string; now: string }) {
    return trx
      .updateTable('decommission_requests')
      .set((eb) => ({ state: 'expired', decided_at: eb.ref('expires_at') }))
      .where('request_id', '=', values.requestId)
      .where('state', '=', 'pending')
      .where('expires_at', '<=', values.now)
      .returning(DECOMMISSION_REQUEST_COLUMNS)
      .executeTakeFirst();
  }

  /** The conditional UPDATE of a pending, unexpired request, to be narrowed to the officer the decision needs. */
  private decide(trx: Kysely<DB>, state: Exclude<DecommissionRequestState, 'pending' | 'expired'>, values: RequestDecision) {
    return trx
      .updateTable('decommission_requests')
      .set({ state, decided_at: values.decidedAt, decided_by: values.officer })
      .where('request_id', '=', values.requestId)
      .where('state', '=', 'pending')
      .where('expires_at', '>', values.decidedAt)
      .returning(DECOMMISSION_REQUEST_COLUMNS);
  }

  /**
   * The officer's pending requests not yet past their expiry, counted inside `trx` once it holds the
   * officer's turn: the officer's concurrent requests, on any instance, count one after another, so
   * none of them passes a limit that the others have reached.
   */
  async pendingOfRequester(trx: Kysely<DB>, requestedBy: string, now: string): Promise<PendingOfRequester> {
    await serializeWithin(trx, 'decommission-requests-of', requestedBy);
    const { count, firstExpiry } = await trx
      .selectFrom('decommission_requests')
      .select((eb) => [eb.fn.countAll<number | bigint>().as('count'), eb.fn.min('expires_at').as('firstExpiry')])
      .where('requested_by', '=', requestedBy)
      .where('state', '=', 'pending')
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return { count: Number(count), firstExpiry };
  }

  findById(requestId: string, executor: Kysely<DB> = this.db) {
    return executor.selectFrom('decommission_requests').select(DECOMMISSION_REQUEST_COLUMNS).where('request_id', '=', requestId).executeTakeFirst();
  }

  findPending(assetId: string, executor: Kysely<DB> = this.db) {
    return executor
      .selectFrom('decommission_requests')
      .select(DECOMMISSION_REQUEST_COLUMNS)
      .where('asset_id', '=', assetId)
      .where('state', '=', 'pending')
      .executeTakeFirst();
  }

  /** Pending requests past their expiry, oldest first, for a listing to mark expired first (the state index finds them). */
  findOverdue(now: string) {
    return this.db
      .selectFrom('decommission_requests')
      .select(DECOMMISSION_REQUEST_COLUMNS)
      .where('state', '=', 'pending')
      .where('expires_at', '<=', now)
      .orderBy('id')
      .execute();
  }

  /** Newest first: `limit` rows and, when more follow, the id of the last (the next page's cursor), from `offset`, or before the row with id `beforeId`. */
  async findPage(filter: DecommissionRequestFilter, window: { limit: number; offset?: number; beforeId?: number }) {
    const rows = await this.filtered(filter)
      .$if(window.beforeId !== undefined, (query) => query.where('id', '<', window.beforeId as number))
      .select(['id', ...DECOMMISSION_REQUEST_COLUMNS])
      .orderBy('id', 'desc')
      .limit(window.limit + 1)
      .offset(window.offset ?? 0)
      .execute();
    const page = rows.slice(0, window.limit);
    return {
      rows: page.map((row) => Object.fromEntries(DECOMMISSION_REQUEST_COLUMNS.map((column) => [column, row[column]])) as Omit<typeof row, 'id'>),
      lastId: rows.length > window.limit ? page[page.length - 1].id : undefined,
    };
  }

  async countMatching(filter: DecommissionRequestFilter): Promise<number> {
    const { total } = await this.filtered(filter)
      .select((eb) => eb.fn.countAll<number | bigint>().as('total'))
      .executeTakeFirstOrThrow();
    return Number(total);
  }

  private filtered(filter: DecommissionRequestFilter) {
    let requests = this.db.selectFrom('decommission_requests');
    for (const column of ['state', 'asset_id', 'authorized_by'] as const) {
      const value = filter[column];
      if (value !== undefined) {
        requests = requests.where(column, '=', value);
      }
    }
    return requests;
  }
}
