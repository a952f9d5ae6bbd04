import { Injectable } from '@nestjs/common';
import { Kysely, type RawBuilder } from 'kysely';
import { type AuditChainHead, type AuditEventRow, CompiledStatement, databaseClock, type DB, type GroupEnd, atGroupEnd } from '../../database';
import { chainEvents, DECISION_FIELDS, endAfter, nextEvent, STORED_EVENT_COLUMNS, type UnchainedEvent, appendLeaves, decodeFrontier, encodeFrontier, type StoredNode } from '../trail';

/**
 * A decision's event as it is written: its fields. Its time is not the deciding instance's: the
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

/** An event's place and hash in the tree. */
type Leaf = Pick<AuditEventRow, 'leaf_index' | 'leaf_hash'>;

const nodeRows = (nodes: StoredNode[]) => nodes.map(({ level, index, hash }) => ({ level, node_index: index, hash }));

const storedRow = (event: AuditEventRow) => Object.fromEntries(STORED_EVENT_COLUMNS.map((column) => [column, event[column]])) as AuditEventRow;

const waitingRow = (event: WaitingEvent) => Object.fromEntries(WAITING_COLUMNS.map((column) => [column, event[column]])) as WaitingEvent;

function compileChainStatements(db: Kysely<DB>) {
  return {
    /** Rewriting a column to itself takes the head's lock and returns where the chain ends, with the database's clock for the new event. */
    takeChainEnd: new CompiledStatement(db, [], (db) =>
      db
        .updateTable('audit_chain_head')
        .set((eb) => ({ event_count: eb.ref('event_count') }))
        .where('id', '=', 1)
        .returning(['event_count', 'last_event_id', 'last_hash', 'last_occurred_at'])
        .returning(databaseClock(db).as('clock')),
    ),
    insertEvent: new CompiledStatement(db, STORED_EVENT_COLUMNS, (db, event: AuditEventRow) => db.insertInto('audit_events').values(storedRow(event))),
    moveChainEnd: new CompiledStatement(db, ['event_count', 'last_event_id', 'last_hash', 'last_occurred_at'], (db, end: ChainEnd) =>
      db.updateTable('audit_chain_head').set(end).where('id', '=', 1),
    ),
    readFrontier: new CompiledStatement(db, [], (db) => db.selectFrom('audit_chain_head').select('frontier').where('id', '=', 1)),
    writeFrontier: new CompiledStatement(db, ['frontier'], (db, { frontier }: Pick<AuditChainHead, 'frontier'>) =>
      db.updateTable('audit_chain_head').set({ frontier }).where('id', '=', 1),
    ),
  };
}

/**
 * The writes of the audit trail: events appended to the chain at once (SQLite), or queued and moved into
 * the chain in batches by the sequencer (PostgreSQL). Every write runs on the executor it is given, the
 * decision's transaction or the sequencer's own session.
 */
type ChainEnd = Pick<AuditChainHead, 'event_count' | 'last_event_id' | 'last_hash' | 'last_occurred_at'>;

/**
 * The writes of the audit trail: events appended to the chain at once (SQLite), or queued and moved into
 * the chain in batches by the sequencer (PostgreSQL). Every write runs on the executor it is given, the
 * decision's transaction or the sequencer's own session.
 */
@Injectable()
export class AuditWriteRepository implements GroupEnd<Leaf> {
  /** The statements every decision on SQLite runs, their SQL built once (CompiledStatement says why). */
  private readonly chain: ReturnType<typeof compileChainStatements>;

  constructor(private readonly db: Kysely<DB>) {
    this.chain = compileChainStatements(db);
  }

  /** appendAllToChain for one event. */
  appendToChain(trx: Kysely<DB>, fields: WaitingEvent): Promise<void> {
    return this.appendAllToChain(trx, [fields]);
  }

  /**
   * Adds the events at the end of the chain at once, consecutive and in the order given, inside `trx`,
   * which must hold the chain's only writer: SQLite's write lock, which a commit group holds for all its
   * transactions. The head is taken and moved once and the events inserted in one statement, however
   * many; the tree grows by their leaves at the group's end, with those of the group's other appends
   * that did not roll back (endGroup); in a transaction of no group, at once.
   */
  async appendAllToChain(trx: Kysely<DB>, fields: readonly WaitingEvent[]): Promise<void> {
    if (fields.length === 0) {
      return;
    }
    const [taken] = await this.chain.takeChainEnd.run(trx, {});
    if (taken === undefined) {
      throw new Error('audit_chain_head has no row');
    }
    const { clock, ...end } = taken;
    const now = new Date(clock);
    const events: AuditEventRow[] = [];
    let last: ChainEnd = end;
    for (const next of fields) {
      const event = nextEvent(last, next, now);
      events.push(event);
      last = endAfter(last, event);
    }
    // One event, as every single decision writes it, by the statement built once; several in one INSERT of as many rows.
    await (events.length === 1 ? this.chain.insertEvent.run(trx, events[0]) : trx.insertInto('audit_events').values(events.map(storedRow)).execute());
    const { event_count, last_event_id, last_hash, last_occurred_at } = last;
    await this.chain.moveChainEnd.run(trx, { event_count, last_event_id, last_hash, last_occurred_at });
    await atGroupEnd(
      trx,
      this,
      events.map(({ leaf_index, leaf_hash }) => ({ leaf_index, leaf_hash })),
    );
  }

  /**
   * The commit group's end: its appends' leaves, in chain order, grow the tree, the frontier read and
   * written once, the subtrees they complete inserted in one statement. Run last in the group, inside
   * its transaction.
   */
  async endGroup(trx: Kysely<DB>, leaves: Leaf[]): Promise<void> {
    const [{ frontier }] = await this.chain.readFrontier.run(trx, {});
    const size = leaves[0].leaf_index;
    const hashes = decodeFrontier(frontier);
    // A frontier holds one subtree a bit set in its size: one of another size would grow a wrong tree, which must not commit.
    if (hashes.length !== size.toString(2).replaceAll('0', '').length) {
      throw new Error(`the audit tree's frontier is not that of the ${size} leaves before leaf ${size}`);
    }
    const grown = appendLeaves({ size, hashes }, leaves.map((leaf) => leaf.leaf_hash));
    // A group of few leaves may complete no subtree that is stored, and an INSERT needs a row.
    if (grown.nodes.length > 0) {
      await trx.insertInto('audit_tree_nodes').values(nodeRows(grown.nodes)).execute();
    }
    await this.chain.writeFrontier.run(trx, { frontier: encodeFrontier(grown.frontier.hashes) });
  }

  /**
   * PostgreSQL: records the events, not yet in the chain, inside `trx`, in one statement; returns their
   * places in the queue, which follow the order given, as the sequencer chains them.
   */
  async addWaiting(trx: Kysely<DB>, events: readonly WaitingEvent[]): Promise<number[]> {
    const recordedAt = databaseClock(trx);
    const rows = await trx
      .insertInto('audit_pending')
      .values(events.map((event) => ({ ...waitingRow(event), recorded_at: recordedAt })))
      .returning('pending_id')
      .execute();
    return rows.map(({ pending_id }) => Number(pending_id));
  }

  /** Up to `limit` waiting events, oldest first, chained after the current head: one statement; undefined when none waits. */
  async findWaiting(executor: Kysely<DB>, limit: number): Promise<WaitingBatch | undefined> {
    const rows = await executor
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
      .limit(limit)
      .execute();
    if (rows.length === 0) {
      return undefined;
    }
    const [{ id, event_count, last_event_id, last_hash, last_occurred_at, frontier }] = rows;
    const chained = chainEvents({ id, event_count, last_event_id, last_hash, last_occurred_at, frontier }, rows);
    return { pendingIds: rows.map((row) => Number(row.pending_id)), events: chained.events, nextHead: chained.head, nodes: chained.nodes };
  }

  /**
   * Moves the batch into the chain in one statement, atomic without a transaction (PostgreSQL's
   * data-modifying WITH), returning `returned` as it commits. Positions are the events' primary key:
   * a second writer that chained from the same head fails on them rather than fork the chain.
   */
  async moveIntoChainAtOnce(executor: Kysely<DB>, batch: WaitingBatch, returned: RawBuilder<unknown>): Promise<void> {
    const chaining = executor
      .with('taken', (db) => db.deleteFrom('audit_pending').where('pending_id', 'in', batch.pendingIds).returning('pending_id'))
      .with('chained', (db) => db.insertInto('audit_events').values(batch.events.map(storedRow)).returning('id'));
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
}
