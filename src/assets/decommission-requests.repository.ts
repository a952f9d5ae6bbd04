import { Injectable } from '@nestjs/common';
import { Kysely, sql } from 'kysely';
import { type DB, type DecommissionRequestKind, type DecommissionRequestRow, type DecommissionRequestState, readPage, serializeWithin } from '../database';
import { type AssetRecord, isStillRecord } from './assets.repository';

/** What the table holds of a request, in the order the API shows it (asset_ids follows asset_id). */
const REQUEST_COLUMNS = [
  'request_id',
  'asset_id',
  'batch_id',
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

type RequestColumns = Pick<DecommissionRequestRow, (typeof REQUEST_COLUMNS)[number]>;

/** A request as the API shows it: its columns, and after asset_id every asset it holds, in the order it gave them. */
export type DecommissionRequestRecord = Pick<RequestColumns, 'request_id' | 'asset_id'> & { asset_ids: string[] } & Omit<RequestColumns, 'request_id' | 'asset_id'>;

const recordOf = ({ request_id, asset_id, ...rest }: RequestColumns, assetIds: string[]): DecommissionRequestRecord => ({ request_id, asset_id, asset_ids: assetIds, ...rest });

export interface NewDecommissionRequest {
  requestId: string;
  /** In the order the request gave them; the first is the request's asset_id. */
  assetIds: string[];
  /** A batch request's id for its decommission; null for a request opened by DELETE or a recommission. */
  batchId: string | null;
  kind: DecommissionRequestKind;
  requestedBy: string;
  authorizedBy: string;
  reason: string;
  createdAt: string;
  expiresAt: string;
}

/** A request just inserted, and the assets it could not hold: absent, of another status, or in another pending request. */
export interface OpenedRequest {
  request: DecommissionRequestRecord;
  refused: string[];
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
   * Opens a request, inside `trx`, and has it hold each of its assets whose status its kind needs
   * (active for a decommission, decommissioned for a recommission): the assets it could not hold are
   * `refused`, and then the caller must roll `trx` back. An asset held by another pending request is
   * refused by the partial unique index (migration 015), so of two instances racing over a shared
   * asset one holds it. The assets are taken in asset_id order, so concurrent requests wait on shared
   * assets in one order (no deadlock on PostgreSQL). With `expected` (an If-Match's record, for a
   * request of one asset), only while the asset is still that record.
   */
  async open(trx: Kysely<DB>, values: NewDecommissionRequest, expected?: AssetRecord): Promise<OpenedRequest> {
    const row = await trx
      .insertInto('decommission_requests')
      .values({
        request_id: values.requestId,
        asset_id: values.assetIds[0],
        batch_id: values.batchId,
        kind: values.kind,
        state: 'pending',
        requested_by: values.requestedBy,
        authorized_by: values.authorizedBy,
        reason: values.reason,
        created_at: values.createdAt,
        expires_at: values.expiresAt,
      })
      .returning(REQUEST_COLUMNS)
      .executeTakeFirstOrThrow();
    const refused: string[] = [];
    for (const assetId of [...values.assetIds].sort()) {
      const held = await trx
        .insertInto('decommission_request_assets')
        .columns(['request_id', 'asset_id', 'position', 'pending'])
        .expression((eb) =>
          eb
            .selectFrom('assets')
            // Literals: PostgreSQL types a parameter in a SELECT list as text, which an integer column refuses.
            .select([eb.val(values.requestId).as('request_id'), 'asset_id', sql.lit(values.assetIds.indexOf(assetId)).as('position'), sql.lit(1).as('pending')])
            .where('asset_id', '=', assetId)
            .where('status', '=', ASSET_STATUS_FOR[values.kind])
            .$if(expected !== undefined, (assets) => assets.where(isStillRecord(expected as AssetRecord))),
        )
        .onConflict((conflict) => conflict.doNothing())
        .returning('asset_id')
        .executeTakeFirst();
      if (!held) {
        refused.push(assetId);
      }
    }
    return { request: recordOf(row, values.assetIds), refused };
  }

  /** Approves a pending, unexpired request named to `officer`: of racing decisions exactly one sees it pending. */
  approve(trx: Kysely<DB>, values: RequestDecision) {
    return this.ended(trx, this.decide(trx, 'approved', values).where('authorized_by', '=', values.officer));
  }

  /** `byOverseer`: an officer of the clearance that may reject any request (docs/api.md#two-officers-for-a-decommission), named in it or not. */
  reject(trx: Kysely<DB>, values: RequestDecision, byOverseer: boolean) {
    return this.ended(
      trx,
      this.decide(trx, 'rejected', values).$if(!byOverseer, (update) => update.where('authorized_by', '=', values.officer)),
    );
  }

  withdraw(trx: Kysely<DB>, values: RequestDecision) {
    return this.ended(trx, this.decide(trx, 'withdrawn', values).where('requested_by', '=', values.officer));
  }

  /** Marks a pending request past its expiry as expired, once: it expired at expires_at, decided by no one. */
  expire(trx: Kysely<DB>, values: { requestId: string; now: string }) {
    return this.ended(
      trx,
      trx
        .updateTable('decommission_requests')
        .set((eb) => ({ state: 'expired', decided_at: eb.ref('expires_at') }))
        .where('request_id', '=', values.requestId)
        .where('state', '=', 'pending')
        .where('expires_at', '<=', values.now)
        .returning(REQUEST_COLUMNS),
    );
  }

  /** The conditional UPDATE of a pending, unexpired request, to be narrowed to the officer the decision needs. */
  private decide(trx: Kysely<DB>, state: Exclude<DecommissionRequestState, 'pending' | 'expired'>, values: RequestDecision) {
    return trx
      .updateTable('decommission_requests')
      .set({ state, decided_at: values.decidedAt, decided_by: values.officer })
      .where('request_id', '=', values.requestId)
      .where('state', '=', 'pending')
      .where('expires_at', '>', values.decidedAt)
      .returning(REQUEST_COLUMNS);
  }

  /**
   * Runs a request's move out of pending and, when it took effect, lets go of its assets in the same
   * transaction, so the index that keeps an asset in one pending request at most stays in step with
   * the requests' states. Undefined when the request was no longer pending (another decision came first).
   */
  private async ended(trx: Kysely<DB>, update: { executeTakeFirst(): Promise<RequestColumns | undefined> }): Promise<DecommissionRequestRecord | undefined> {
    const row = await update.executeTakeFirst();
    if (!row) {
      return undefined;
    }
    await trx.updateTable('decommission_request_assets').set({ pending: 0 }).where('request_id', '=', row.request_id).where('pending', '=', 1).execute();
    const [request] = await this.withAssets(trx, [row]);
    return request;
  }

  /**
   * The officer's pending requests not yet past their expiry, counted inside `trx` once it holds the
   * officer's turn: the officer's concurrent requests, on any instance, count one after another, so
   * none of them passes a limit that the others have reached. A batch request counts as one.
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

  async findById(requestId: string, executor: Kysely<DB> = this.db): Promise<DecommissionRequestRecord | undefined> {
    const row = await executor.selectFrom('decommission_requests').select(REQUEST_COLUMNS).where('request_id', '=', requestId).executeTakeFirst();
    return row && (await this.withAssets(executor, [row]))[0];
  }

  /** The pending requests that hold any of `assetIds`. */
  async findPendingHolding(assetIds: string[], executor: Kysely<DB> = this.db): Promise<DecommissionRequestRecord[]> {
    const rows = await executor
      .selectFrom('decommission_requests')
      .select(REQUEST_COLUMNS)
      .where('state', '=', 'pending')
      .where((eb) => eb('request_id', 'in', eb.selectFrom('decommission_request_assets').select('request_id').where('asset_id', 'in', assetIds).where('pending', '=', 1)))
      .execute();
    return this.withAssets(executor, rows);
  }

  /** Which of `assetIds` a pending request holds: each one's request_id. */
  async holdersOf(assetIds: string[], executor: Kysely<DB> = this.db): Promise<Map<string, string>> {
    const rows = await executor.selectFrom('decommission_request_assets').select(['asset_id', 'request_id']).where('asset_id', 'in', assetIds).where('pending', '=', 1).execute();
    return new Map(rows.map((row) => [row.asset_id, row.request_id]));
  }

  /** Pending requests past their expiry, oldest first, for a listing to mark expired first (the state index finds them). */
  async findOverdue(now: string): Promise<DecommissionRequestRecord[]> {
    const rows = await this.db.selectFrom('decommission_requests').select(REQUEST_COLUMNS).where('state', '=', 'pending').where('expires_at', '<=', now).orderBy('id').execute();
    return this.withAssets(this.db, rows);
  }

  /** Newest first: `limit` rows and, when more follow, the id of the last (the next page's cursor), from `offset`, or before the row with id `beforeId`. */
  async findPage(filter: DecommissionRequestFilter, window: { limit: number; offset?: number; beforeId?: number }) {
    const { rows, more } = await readPage(
      this.filtered(filter)
        .$if(window.beforeId !== undefined, (query) => query.where('id', '<', window.beforeId as number))
        .select(['id', ...REQUEST_COLUMNS])
        .orderBy('id', 'desc'),
      window,
    );
    return {
      rows: await this.withAssets(this.db, rows.map((row) => Object.fromEntries(REQUEST_COLUMNS.map((column) => [column, row[column]])) as RequestColumns)),
      lastId: more ? rows[rows.length - 1].id : undefined,
    };
  }

  async countMatching(filter: DecommissionRequestFilter): Promise<number> {
    const { total } = await this.filtered(filter)
      .select((eb) => eb.fn.countAll<number | bigint>().as('total'))
      .executeTakeFirstOrThrow();
    return Number(total);
  }

  /** By asset: the requests that hold it, whatever their state (the asset index of migration 015 finds them). */
  private filtered(filter: DecommissionRequestFilter) {
    let requests = this.db.selectFrom('decommission_requests');
    for (const column of ['state', 'authorized_by'] as const) {
      const value = filter[column];
      if (value !== undefined) {
        requests = requests.where(column, '=', value);
      }
    }
    const assetId = filter.asset_id;
    return assetId === undefined
      ? requests
      : requests.where((eb) => eb('request_id', 'in', eb.selectFrom('decommission_request_assets').select('request_id').where('asset_id', '=', assetId)));
  }

  /** The rows as the API shows them, each with its assets in the order it gave them; read with `executor`, inside a transaction when one is open. */
  private async withAssets(executor: Kysely<DB>, rows: RequestColumns[]): Promise<DecommissionRequestRecord[]> {
    if (rows.length === 0) {
      return [];
    }
    const held = await executor
      .selectFrom('decommission_request_assets')
      .select(['request_id', 'asset_id'])
      .where(
        'request_id',
        'in',
        rows.map((row) => row.request_id),
      )
      .orderBy('request_id')
      .orderBy('position')
      .execute();
    const assetsOf = new Map<string, string[]>();
    for (const { request_id, asset_id } of held) {
      assetsOf.set(request_id, [...(assetsOf.get(request_id) ?? []), asset_id]);
    }
    return rows.map((row) => recordOf(row, assetsOf.get(row.request_id) ?? []));
  }
}
