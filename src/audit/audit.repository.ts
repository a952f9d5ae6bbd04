import { Injectable } from '@nestjs/common';
import { type Compilable, CompiledQuery, Kysely, type RawBuilder, sql } from 'kysely';
import { type AuditChainHead, type AuditEventRow, type AuditOutcome, databaseClock, type DB, type GroupEnd, atGroupEnd, precompile } from '../database';
import { type ChainEnd, chainEvents, DECISION_FIELDS, endAfter, LEAF_FIELDS, nextEvent, type UnchainedEvent } from './audit-chain';
import type { DecisionDetails } from './audit-entry';
import { AUDIT_ACTIONS } from './audit.vocabulary';
import { appendLeaves, decodeFrontier, encodeFrontier, type StoredNode, type TreeNode } from './merkle';

/** What the API shows of an event, in the order it shows it: the leaf's fields, then the hashes. */
export const AUDIT_EVENT_COLUMNS = [...LEAF_FIELDS, 'hash', 'leaf_hash'] as const;

export type ListedAuditEvent = Pick<AuditEventRow, (typeof AUDIT_EVENT_COLUMNS)[number]>;

/** An event as the listing and the export show it: its columns in their order, `details` as the object it holds. */
export type ShownAuditEvent = Omit<ListedAuditEvent, 'details'> & { details: DecisionDetails | null };

export function shownEvent(row: ListedAuditEvent): ShownAuditEvent {
  const shown = Object.fromEntries(AUDIT_EVENT_COLUMNS.map((column) => [column, row[column]])) as ListedAuditEvent;
  return { ...shown, details: row.details === null ? null : (JSON.parse(row.details) as DecisionDetails) };
}

/** Each field narrows the events; since and until are ISO 8601 UTC instants as stored. */
export interface AuditEventFilter {
  actor?: string;
  action?: string;
  outcome?: AuditOutcome;
  asset_id?: string;
  since?: string;
  until?: string;
}

/** The ids a listing keeps: from `fromId`, before `beforeId`. */
interface IdBounds {
  fromId?: number;
  beforeId?: number;
}

/**
 * A waiting event as the decision writes it: its fields. Its time is not the deciding instance's: the
 * statement that writes it stores the database's clock (databaseClock), so one instance's wrong clock
 * cannot date the trail.
 */
export type WaitingEvent = UnchainedEvent;

const WAITING_COLUMNS = [...DECISION_FIELDS, 'details'] as const satisfies readonly (keyof WaitingEvent)[];

/** Waiting events, oldest first, chained after the head they were read with. */
export interface WaitingBatch {
  pendingIds: number[];
  events: AuditEventRow[];
  /** The head once the batch is in the chain. */
  nextHead: AuditChainHead;
  /** The tree's subtrees the batch completes. */
  nodes: StoredNode[];
}

/** The latest signed checkpoint, as stored. */
export interface StoredCheckpoint {
  treeSize: number;
  verifierKey: string;
  note: string;
}

/** An asset with the latest allowed event that changed its status: a decommission or a recommission. */
export interface AssetStatusChange {
  asset_id: string;
  status: string;
  decommission_reason: string | null;
  authorized_by: string | null;
  decommissioned_at: string | null;
  event_id: number;
  event_action: string;
  event_occurred_at: string;
  event_details: string | null;
}

/** The name under which a waiting event's column is a value of a change's precompiled statement, apart from the change's own values. */
const eventValue = (column: (typeof WAITING_COLUMNS)[number]) => `event:${column}`;

/** A change's values and its event's, as its precompiled statement with the event takes them. */
export type ChangeWithEventValues<Values> = Values & Record<string, unknown>;

/** The row a change returned, and the place in the queue of the event written with it. */
export type ChangedWithEvent<Row> = Row & { pending_id: number | string };

/** An event's place and hash in the tree. */
type Leaf = Pick<AuditEventRow, 'leaf_index' | 'leaf_hash'>;

const nodeRows = (nodes: StoredNode[]) => nodes.map(({ level, index, hash }) => ({ level, node_index: index, hash }));

/** Every column an event is stored with. */
const STORED_COLUMNS = [...AUDIT_EVENT_COLUMNS, 'leaf_index'] as const;

const eventValues = (events: AuditEventRow[]) =>
  events.map((event) => Object.fromEntries(STORED_COLUMNS.map((column) => [column, event[column]])) as AuditEventRow);

/**
 * The multi-row insert of subtrees, its SQL compiled once per number of rows, its parameters each row's
 * level, index and hash in nodeRows' column order. A commit group completes at most as many subtrees
 * as it appends leaves plus the tree's height, so few are ever compiled.
 */
function nodeInsert(db: Kysely<DB>) {
  const compiled = new Map<number, string>();
  return (nodes: StoredNode[]) => {
    let text = compiled.get(nodes.length);
    if (text === undefined) {
      text = db.insertInto('audit_tree_nodes').values(nodeRows(nodes)).compile().sql;
      compiled.set(nodes.length, text);
    }
    return CompiledQuery.raw(text, nodes.flatMap(({ level, index, hash }) => [level, index, hash]));
  };
}

/** The statements every decision and every batch runs, compiled once where their shape is fixed. */
function appendQueries(db: Kysely<DB>) {
  return {
    addWaiting: precompile((event: WaitingEvent) =>
      db
        .insertInto('audit_pending')
        .values({ ...(Object.fromEntries(WAITING_COLUMNS.map((column) => [column, event[column]])) as WaitingEvent), recorded_at: databaseClock(db) })
        .returning('pending_id'),
    ),
    findWaiting: precompile(({ limit }: { limit: number }) =>
      db
        .selectFrom('audit_pending')
        .innerJoin('audit_chain_head', (join) => join.onTrue())
        .selectAll('audit_pending')
        .select([
          'audit_chain_head.id',
          'audit_chain_head.event_count',
          'audit_chain_head.last_event_id',
          'audit_chain_head.last_hash',
          'audit_chain_head.last_occurred_at',
          'audit_chain_head.frontier',
        ])
        .orderBy('pending_id')
        .limit(limit),
    ),
    // Rewriting a column to itself takes the head's lock (SQLite's write lock, which the commit group
    // holds anyway) and returns where the chain ends, with the database's clock for the new event.
    takeHead: db
      .updateTable('audit_chain_head')
      .set((eb) => ({ event_count: eb.ref('event_count') }))
      .where('id', '=', 1)
      .returning(['event_count', 'last_event_id', 'last_hash', 'last_occurred_at'])
      .returning(databaseClock(db).as('clock'))
      .compile(),
    insertEvent: precompile((event: AuditEventRow) => db.insertInto('audit_events').values(eventValues([event])[0])),
    moveHead: precompile((head: ChainEnd) =>
      db
        .updateTable('audit_chain_head')
        .set({ event_count: head.event_count, last_event_id: head.last_event_id, last_hash: head.last_hash, last_occurred_at: head.last_occurred_at })
        .where('id', '=', 1),
    ),
    readFrontier: db.selectFrom('audit_chain_head').select('frontier').where('id', '=', 1).compile(),
    insertNodes: nodeInsert(db),
    moveFrontier: precompile(({ frontier }: { frontier: string }) => db.updateTable('audit_chain_head').set({ frontier }).where('id', '=', 1)),
  };
}

@Injectable()
export class AuditRepository {
  private readonly appending;
  /** One function for every append, by which a group tells its appends' leaves apart from other work's items. */
  private readonly growTreeAtGroupEnd: GroupEnd<Leaf> = (trx, leaves) => this.growTree(trx, leaves);

  constructor(private readonly db: Kysely<DB>) {
    this.appending = appendQueries(db);
  }

  /** Records the event, not yet in the chain, with `executor`'s statement or transaction; returns its place in the queue. */
  async addWaiting(event: WaitingEvent, executor: Kysely<DB>): Promise<number> {
    const [row] = (await executor.executeQuery(this.appending.addWaiting(event))).rows;
    return Number(row.pending_id);
  }

  /**
   * PostgreSQL: compiles, once, `change` (one data-modifying statement that returns the row it changed)
   * together with the insert of its decision's waiting event, made only when the change returned a row:
   * one statement, atomic without BEGIN and COMMIT, so a decision costs one round trip.
   */
  precompileChangeWithEvent<Values extends object, Row>(
    change: (values: Values) => Compilable<Row>,
  ): (values: Values, event: WaitingEvent) => CompiledQuery<ChangedWithEvent<Row>> {
    const statement = precompile((values: ChangeWithEventValues<Values>) => {
      // The event's time is the statement's, the asset's decommissioned_at too: one instant of the database's clock.
      const withEvent = sql<ChangedWithEvent<Row>>`with changed as (${change(values)}),
        waiting as (insert into audit_pending (recorded_at, ${sql.join(WAITING_COLUMNS.map((column) => sql.ref(column)))})
                    select ${databaseClock(this.db)}, ${sql.join(WAITING_COLUMNS.map((column) => values[eventValue(column)]))} from changed returning pending_id)
        select changed.*, waiting.pending_id from changed cross join waiting`;
      return { compile: () => withEvent.compile(this.db) };
    });
    return (values, event) => statement({ ...values, ...Object.fromEntries(WAITING_COLUMNS.map((column) => [eventValue(column), event[column]])) });
  }

  /** Runs a change compiled with its event, in `executor`'s transaction or committed by itself; the row it changed, or undefined. */
  async changeWithEvent<Row>(statement: CompiledQuery<ChangedWithEvent<Row>>, executor: Kysely<DB>): Promise<ChangedWithEvent<Row> | undefined> {
    return (await executor.executeQuery(statement)).rows.at(0);
  }

  /** Up to `limit` waiting events, oldest first, chained after the current head: one statement; undefined when none waits. */
  async findWaiting(executor: Kysely<DB>, limit: number): Promise<WaitingBatch | undefined> {
    const rows = (await executor.executeQuery(this.appending.findWaiting({ limit }))).rows;
    if (rows.length === 0) {
      return undefined;
    }
    const [{ id, event_count, last_event_id, last_hash, last_occurred_at, frontier }] = rows;
    const head = { id, event_count, last_event_id, last_hash, last_occurred_at, frontier };
    const chained = chainEvents(head, rows);
    return { pendingIds: rows.map((row) => Number(row.pending_id)), events: chained.events, nextHead: chained.head, nodes: chained.nodes };
  }

  /**
   * Adds the event at the end of the chain at once, inside `trx`, which must hold the chain's only
   * writer: SQLite's write lock, which a commit group holds for all its transactions. The tree grows by
   * its leaf at the group's end, with those of the group's other appends that did not roll back
   * (growTree); in a transaction of no group, at once.
   */
  async append(fields: UnchainedEvent, trx: Kysely<DB>): Promise<void> {
    const [taken] = (await trx.executeQuery(this.appending.takeHead)).rows;
    if (taken === undefined) {
      throw new Error('audit_chain_head has no row');
    }
    const { clock, ...end } = taken;
    const event = nextEvent(end, fields, new Date(clock));
    await trx.executeQuery(this.appending.insertEvent(event));
    await trx.executeQuery(this.appending.moveHead(endAfter(end, event)));
    await atGroupEnd(trx, this.growTreeAtGroupEnd, { leaf_index: event.leaf_index, leaf_hash: event.leaf_hash });
  }

  /**
   * Appends a commit group's leaves, in chain order, to the tree: the frontier read and written once,
   * the subtrees they complete inserted in one statement. Run last in the group, inside its transaction.
   */
  async growTree(trx: Kysely<DB>, leaves: Leaf[]): Promise<void> {
    const [{ frontier }] = (await trx.executeQuery(this.appending.readFrontier)).rows;
    const size = leaves[0].leaf_index;
    const hashes = decodeFrontier(frontier);
    // A frontier holds one subtree a bit set in its size: one of another size would grow a wrong tree, which must not commit.
    if (hashes.length !== size.toString(2).replaceAll('0', '').length) {
      throw new Error(`the audit tree's frontier is not that of the ${size} leaves before leaf ${size}`);
    }
    const grown = appendLeaves({ size, hashes }, leaves.map((leaf) => leaf.leaf_hash));
    // A group of few leaves may complete no subtree that is stored, and an INSERT needs a row.
    if (grown.nodes.length > 0) {
      await trx.executeQuery(this.appending.insertNodes(grown.nodes));
    }
    await trx.executeQuery(this.appending.moveFrontier({ frontier: encodeFrontier(grown.frontier.hashes) }));
  }

  /**
   * Moves the batch into the chain in one statement, atomic without a transaction (PostgreSQL's
   * data-modifying WITH), returning `returned` as it commits. Positions are the events' primary key:
   * a second writer that chained from the same head fails on them rather than fork the chain.
   */
  async moveIntoChainAtOnce(executor: Kysely<DB>, batch: WaitingBatch, returned: RawBuilder<unknown>): Promise<void> {
    const chaining = executor
      .with('taken', (db) => db.deleteFrom('audit_pending').where('pending_id', 'in', batch.pendingIds).returning('pending_id'))
      .with('chained', (db) => db.insertInto('audit_events').values(eventValues(batch.events)).returning('id'));
    // A batch of few events may complete no subtree that is stored, and an INSERT needs a row.
    const withTree =
      batch.nodes.length === 0 ? chaining : chaining.with('grown', (db) => db.insertInto('audit_tree_nodes').values(nodeRows(batch.nodes)).returning('level'));
    await withTree
      .updateTable('audit_chain_head')
      .set({
        event_count: batch.nextHead.event_count,
        last_event_id: batch.nextHead.last_event_id,
        last_hash: batch.nextHead.last_hash,
        last_occurred_at: batch.nextHead.last_occurred_at,
        frontier: batch.nextHead.frontier,
      })
      .where('id', '=', 1)
      .returning(returned.as('returned'))
      .execute();
  }

  /** Which of these waiting events are still waiting; the others are in the chain, committed. */
  async findStillWaiting(pendingIds: number[]): Promise<Set<number>> {
    const rows = await this.db.selectFrom('audit_pending').select('pending_id').where('pending_id', 'in', pendingIds).execute();
    return new Set(rows.map((row) => Number(row.pending_id)));
  }

  async findNewestId(): Promise<number | undefined> {
    return (await this.db.selectFrom('audit_events').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst())?.id;
  }

  findChainHead(): Promise<AuditChainHead | undefined> {
    return this.db.selectFrom('audit_chain_head').selectAll().where('id', '=', 1).executeTakeFirst();
  }

  /** Events in chain order after `afterId`, up to `throughId` when given. */
  findChainSegment(afterId: number, limit: number, throughId?: number): Promise<AuditEventRow[]> {
    let events = this.db.selectFrom('audit_events').select(STORED_COLUMNS).where('id', '>', afterId);
    if (throughId !== undefined) {
      events = events.where('id', '<=', throughId);
    }
    return events.orderBy('id').limit(limit).execute();
  }

  /** The event's position in the tree, or undefined for an unknown id. */
  async findLeafIndex(id: number): Promise<number | undefined> {
    const row = await this.db.selectFrom('audit_events').select('leaf_index').where('id', '=', id).executeTakeFirst();
    return row?.leaf_index;
  }

  /** The first event at or after the time (ISO 8601 UTC, as stored); `occurred_at` never decreases along the chain. */
  async findFirstIdSince(time: string): Promise<number | undefined> {
    const first = await this.db
      .selectFrom('audit_events')
      .select('id')
      .where('occurred_at', '>=', time)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return first?.id;
  }

  /**
   * A page of matching events, newest first (the chain's order, which is `id` order), with one more
   * read than shown, which tells whether more follow; `beforeId` continues a keyset walk. since and
   * until are first resolved to id bounds, so the page reads one filter's `(column, id)` index (or the
   * primary key) from its start in id order, filtering any other column: no sort, at any depth.
   */
  async findPage(filter: AuditEventFilter, window: { limit: number; offset?: number; beforeId?: number }): Promise<{ rows: ListedAuditEvent[]; more: boolean }> {
    const bounds = await this.idBounds(filter);
    if (bounds === 'none') {
      return { rows: [], more: false };
    }
    if (window.beforeId !== undefined) {
      bounds.beforeId = Math.min(bounds.beforeId ?? window.beforeId, window.beforeId);
    }
    const rows = await this.filtered(filter, bounds)
      .select(AUDIT_EVENT_COLUMNS)
      .orderBy('id', 'desc')
      .limit(window.limit + 1)
      .offset(window.offset ?? 0)
      .execute();
    return { rows: rows.slice(0, window.limit), more: rows.length > window.limit };
  }

  /** Up to `limit` matching events after `afterId`, oldest first: a stream's replay, and the events its hub fans out. */
  async findAfter(filter: AuditEventFilter, afterId: number, limit: number): Promise<ListedAuditEvent[]> {
    const bounds = await this.idBounds(filter);
    if (bounds === 'none') {
      return [];
    }
    return this.filtered(filter, { ...bounds, fromId: Math.max(bounds.fromId ?? 0, afterId + 1) })
      .select(AUDIT_EVENT_COLUMNS)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /** Every matching event: what the offset listing reports as total_count. */
  async countMatching(filter: AuditEventFilter): Promise<number> {
    const bounds = await this.idBounds(filter);
    if (bounds === 'none') {
      return 0;
    }
    const { total } = await this.filtered(filter, bounds)
      .select((eb) => eb.fn.countAll<number | bigint>().as('total'))
      .executeTakeFirstOrThrow();
    return Number(total);
  }

  private filtered(filter: AuditEventFilter, bounds: IdBounds) {
    let events = this.db.selectFrom('audit_events');
    for (const column of ['actor', 'action', 'outcome', 'asset_id'] as const) {
      const value = filter[column];
      if (value !== undefined) {
        events = events.where(column, '=', value);
      }
    }
    if (bounds.fromId !== undefined) {
      events = events.where('id', '>=', bounds.fromId);
    }
    if (bounds.beforeId !== undefined) {
      events = events.where('id', '<', bounds.beforeId);
    }
    return events;
  }

  /**
   * occurred_at never decreases along the chain, so a time is the id of the first event at or after it:
   * since keeps ids from there, until those before. No event at or after since: none matches; none at
   * or after until: no upper bound.
   */
  private async idBounds({ since, until }: AuditEventFilter): Promise<IdBounds | 'none'> {
    const firstAtOrAfter = async (time: string | undefined) => {
      if (time === undefined) {
        return undefined;
      }
      const first = await this.db.selectFrom('audit_events').select('id').where('occurred_at', '>=', time).orderBy('occurred_at').orderBy('id').limit(1).executeTakeFirst();
      return first?.id ?? null;
    };
    const [fromId, beforeId] = await Promise.all([firstAtOrAfter(since), firstAtOrAfter(until)]);
    return fromId === null ? 'none' : { fromId, beforeId: beforeId ?? undefined };
  }

  /** The hashes of these complete subtrees: leaves from the events, the others from the stored nodes; two reads at most. */
  async findTreeNodes(nodes: TreeNode[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const leaves = nodes.filter((node) => node.level === 0).map((node) => node.index);
    const interior = nodes.filter((node) => node.level > 0);
    if (leaves.length > 0) {
      const rows = await this.db.selectFrom('audit_events').select(['leaf_index', 'leaf_hash']).where('leaf_index', 'in', leaves).execute();
      rows.forEach((row) => found.set(nodeKey({ level: 0, index: row.leaf_index }), row.leaf_hash));
    }
    if (interior.length > 0) {
      const rows = await this.db
        .selectFrom('audit_tree_nodes')
        .select(['level', 'node_index', 'hash'])
        .where((eb) => eb.or(interior.map(({ level, index }) => eb.and([eb('level', '=', level), eb('node_index', '=', index)]))))
        .execute();
      rows.forEach((row) => found.set(nodeKey({ level: row.level, index: Number(row.node_index) }), row.hash));
    }
    return found;
  }

  async findCheckpoint(): Promise<StoredCheckpoint | undefined> {
    const row = await this.db.selectFrom('audit_checkpoint').select(['tree_size', 'verifier_key', 'note']).where('id', '=', 1).executeTakeFirst();
    return row && { treeSize: Number(row.tree_size), verifierKey: row.verifier_key, note: row.note };
  }

  /**
   * Stores the checkpoint unless a larger tree's is stored, or this size's by the same key: instances
   * that sign at once write the same bytes, and a rotated key replaces the old one's at the same size.
   */
  async storeCheckpoint(checkpoint: StoredCheckpoint): Promise<void> {
    const row = { id: 1, tree_size: checkpoint.treeSize, verifier_key: checkpoint.verifierKey, note: checkpoint.note };
    await this.db
      .insertInto('audit_checkpoint')
      .values(row)
      .onConflict((conflict) =>
        conflict
          .column('id')
          .doUpdateSet({ tree_size: row.tree_size, verifier_key: row.verifier_key, note: row.note })
          .where((eb) =>
            eb.or([
              eb('audit_checkpoint.tree_size', '<', row.tree_size),
              eb.and([eb('audit_checkpoint.tree_size', '=', row.tree_size), eb('audit_checkpoint.verifier_key', '<>', row.verifier_key)]),
            ]),
          ),
      )
      .execute();
  }

  /** The allowed request and approval events of an asset's decommission requests, oldest first (the asset_id index finds them). */
  findRequestSteps(assetId: string) {
    return this.db
      .selectFrom('audit_events')
      .select(['action', 'actor', 'details'])
      .where('asset_id', '=', assetId)
      .where('action', 'in', [AUDIT_ACTIONS.requestDecommission, AUDIT_ACTIONS.approveDecommission])
      .where('outcome', '=', 'allowed')
      .orderBy('id')
      .execute();
  }

  /** Every asset ever decommissioned, beside its latest allowed decommission or recommission event, in asset order, after `afterAssetId`. */
  findLatestStatusChanges(afterAssetId: string, limit: number): Promise<AssetStatusChange[]> {
    return this.db
      .selectFrom('assets')
      .innerJoin(
        (eb) =>
          eb
            .selectFrom('audit_events')
            .select((inner) => ['asset_id', inner.fn.max('id').as('event_id')])
            .where('action', 'in', [AUDIT_ACTIONS.decommission, AUDIT_ACTIONS.recommission])
            .where('outcome', '=', 'allowed')
            .groupBy('asset_id')
            .as('latest'),
        (join) => join.onRef('latest.asset_id', '=', 'assets.asset_id'),
      )
      .innerJoin('audit_events', 'audit_events.id', 'latest.event_id')
      .select([
        'assets.asset_id',
        'assets.status',
        'assets.decommission_reason',
        'assets.authorized_by',
        'assets.decommissioned_at',
        'latest.event_id',
        'audit_events.action as event_action',
        'audit_events.occurred_at as event_occurred_at',
        'audit_events.details as event_details',
      ])
      .where('assets.asset_id', '>', afterAssetId)
      .orderBy('assets.asset_id')
      .limit(limit)
      .execute();
  }
}

export const nodeKey = ({ level, index }: TreeNode) => `${level}:${index}`;
