import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { createDatabase, type DB, migrateToLatest } from '../../database';
import { Metrics } from '../../observability';
import { AuditLog } from '../write';
import { type AuditEventFilter, AuditQueryRepository, type ListedAuditEvent } from './audit-query.repository';
import { AuditStream, type StreamSink } from './audit-stream';

const BACKLOG = 1_000;
const STREAMS = 20;

/** The turn of the event loop: one more each time setImmediate callbacks run. */
let turn = 0;
let counting = true;
const countTurns = () => {
  turn++;
  if (counting) {
    setImmediate(countTurns);
  }
};

/** The trail's queries, recording each replay read: the turn it started in, and how many ran at once. */
class RecordedQueries extends AuditQueryRepository {
  readonly startedInTurn: number[] = [];
  mostAtOnce = 0;
  private running = 0;

  override async findAfter(filter: AuditEventFilter, afterId: number, limit: number): Promise<ListedAuditEvent[]> {
    this.startedInTurn.push(turn);
    this.mostAtOnce = Math.max(this.mostAtOnce, ++this.running);
    try {
      return await super.findAfter(filter, afterId, limit);
    } finally {
      this.running--;
    }
  }
}

/** An audit log through which nothing is placed: the streams here only replay. */
class NothingPlaced extends AuditLog {
  append(): ReturnType<AuditLog['append']> {
    throw new Error('nothing is appended in this spec');
  }
  lagMs(): number {
    return 0;
  }
  isLagging(): boolean {
    return false;
  }
  onPlacedAnywhere(): () => void {
    return () => undefined;
  }
}

/** A client that takes nothing: what it was sent never drains, until `leave()`. */
class StalledClient implements StreamSink {
  readonly sent: number[] = [];
  private gone = false;
  private readonly waiting: ((drained: boolean) => void)[] = [];

  send(events: readonly ListedAuditEvent[]): boolean {
    this.sent.push(events.length);
    return !this.gone;
  }
  closed(): boolean {
    return this.gone;
  }
  drained(): Promise<boolean> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  end(): void {
    this.leave();
  }
  leave(): void {
    this.gone = true;
    this.waiting.splice(0).forEach((resolve) => resolve(false));
  }
}

describe('AuditStream replays', () => {
  let db: Kysely<DB>;
  let queries: RecordedQueries;
  let streams: AuditStream;

  before(async () => {
    db = createDatabase({ dialect: 'sqlite', path: ':memory:' });
    await migrateToLatest(db);
    const event = { occurred_at: '2030-01-01T00:00:00.000Z', action: 'auth.authenticate', outcome: 'denied' as const, ip: '127.0.0.1', method: 'GET', path: '/', prev_hash: '0', hash: '1', leaf_hash: 'bA==' };
    await db
      .insertInto('audit_events')
      .values(Array.from({ length: BACKLOG }, (_, index) => ({ ...event, id: index + 1, leaf_index: index, request_id: `r-${index}` })))
      .execute();
    queries = new RecordedQueries(db);
    streams = new AuditStream(queries, new NothingPlaced(), new Metrics(db));
  });
  after(async () => {
    counting = false;
    streams.onModuleDestroy();
    await db.destroy();
  });

  it('read one step for a client until it has taken it, start one step per turn of the event loop, whatever the number of streams', async () => {
    setImmediate(countTurns);
    const clients = Array.from({ length: STREAMS }, () => new StalledClient());
    const replays = clients.map((client, index) => streams.subscribe({}, 0, { id: `officer-${index}`, clearance: 7 }, client));
    while (clients.some((client) => client.sent.length === 0)) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    // A few more turns: a stream that did not wait for its client would read again in them.
    for (let i = 0; i < 10; i++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.deepEqual(
      clients.map((client) => client.sent),
      clients.map(() => [100]),
      'one step of 100 events each, and no more while the client has not taken it',
    );
    assert.equal(new Set(queries.startedInTurn).size, STREAMS, `each step in a turn of its own: ${queries.startedInTurn.join(' ')}`);
    assert.ok(queries.mostAtOnce <= 4, `${queries.mostAtOnce} replay reads at once`);
    clients.forEach((client) => client.leave());
    await Promise.all(replays);
  });
});
