import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { Response } from 'supertest';
import { CompiledQuery, type KyselyPlugin } from 'kysely';
import { AuditQueryRepository } from '../src/audit';
import type { AuditEventRow } from '../src/database';
import { describeEachDatabase } from './support/databases';
import { expectErrorBody, listAuditEvents, listFleet } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';

const ACTORS = ['officer-1', 'officer-2', 'officer-3'];
const ACTIONS = ['asset.decommission', 'asset.recommission', 'auth.authenticate', 'audit.read'];
const OUTCOMES = ['allowed', 'denied'] as const;
const ASSETS = ['TIE-0001', 'TIE-0002', 'EQP-0001'];
const MODEL_SIZE = 400;
const START = Date.parse('2026-11-01T00:00:00.000Z');

type Filter = Partial<Record<'actor' | 'action' | 'outcome' | 'asset_id' | 'since' | 'until', string>>;

/** A deterministic log: every field cycles at a different period, and the clock never goes back (ties included). */
function modelEvents(): AuditEventRow[] {
  return Array.from({ length: MODEL_SIZE }, (_, index) => {
    const id = index + 1;
    return {
      id,
      occurred_at: new Date(START + Math.floor(index / 3) * 60_000).toISOString(),
      action: ACTIONS[(index * 7) % ACTIONS.length],
      outcome: OUTCOMES[Math.floor(index / 5) % 2],
      reason: null,
      actor: index % 11 === 0 ? null : ACTORS[index % ACTORS.length],
      actor_clearance: 7,
      asset_id: index % 4 === 3 ? null : ASSETS[(index * 5) % ASSETS.length],
      request_id: `model-${id}`,
      ip: '127.0.0.1',
      method: 'GET',
      path: '/v1/model',
      prev_hash: '0'.repeat(64),
      hash: '1'.repeat(64),
      leaf_hash: 'bGVhZg==',
      leaf_index: index,
      details: null,
    };
  });
}

/** An event as the listing shows it: every stored field but its position in the tree. */
function omitPosition(event: AuditEventRow): Omit<AuditEventRow, 'leaf_index'> {
  const shown: Partial<AuditEventRow> = { ...event };
  delete shown.leaf_index;
  return shown as Omit<AuditEventRow, 'leaf_index'>;
}

function matches(event: AuditEventRow, filter: Filter): boolean {
  return (
    (filter.actor === undefined || event.actor === filter.actor) &&
    (filter.action === undefined || event.action === filter.action) &&
    (filter.outcome === undefined || event.outcome === filter.outcome) &&
    (filter.asset_id === undefined || event.asset_id === filter.asset_id) &&
    (filter.since === undefined || event.occurred_at >= new Date(filter.since).toISOString()) &&
    (filter.until === undefined || event.occurred_at < new Date(filter.until).toISOString())
  );
}

const queryOf = (filter: Filter, extra: string) =>
  [...Object.entries(filter).map(([key, value]) => `${key}=${encodeURIComponent(value)}`), extra].filter(Boolean).join('&');

describeEachDatabase('GET /v1/audit/events: filters and keyset paging against a model of the events', (engine) => {
  let t: TestApp;
  let admiral: string;
  const model = modelEvents();

  before(async () => {
    t = await startTestApp({ engine, records: null });
    admiral = t.bearer('admiral-7', 7);
    await t.db.deleteFrom('audit_events').execute();
    for (let from = 0; from < model.length; from += 100) {
      await t.db.insertInto('audit_events').values(model.slice(from, from + 100)).execute();
    }
  });
  after(() => t.close());

  const filters = fc.record(
    {
      actor: fc.constantFrom(...ACTORS, 'officer-9'),
      action: fc.constantFrom(...ACTIONS),
      outcome: fc.constantFrom(...OUTCOMES),
      asset_id: fc.constantFrom(...ASSETS, 'FAC-0009'),
      // Minutes from START, written with offsets the listing must normalise.
      since: fc.integer({ min: -5, max: Math.ceil(MODEL_SIZE / 3) + 5 }).map((minute) => new Date(START + minute * 60_000).toISOString().replace('.000Z', 'Z')),
      until: fc.integer({ min: -5, max: Math.ceil(MODEL_SIZE / 3) + 5 }).map((minute) => new Date(START + minute * 60_000 + 3_600_000).toISOString().replace('.000Z', '+01:00')),
    },
    { requiredKeys: [] },
  );

  it('answers every filter combination with exactly the matching events, newest first, walked by cursor and by page', async () => {
    await fc.assert(
      fc.asyncProperty(filters, fc.integer({ min: 1, max: 40 }), async (filter, limit) => {
        const expected = model.filter((event) => matches(event, filter)).map((event) => event.id).reverse();
        const first = (await listAuditEvents(t, queryOf(filter, `limit=${limit}`), admiral).expect(200)).body.data;
        assert.equal(first.total_count, expected.length);
        assert.equal(first.page, 1);
        const walked: number[] = first.events.map((event: AuditEventRow) => event.id);
        let cursor: string | null = first.next_cursor;
        for (let pages = 0; cursor !== null; pages++) {
          assert.ok(pages <= MODEL_SIZE, 'the walk ends');
          const page = (await listAuditEvents(t, queryOf(filter, `limit=${limit}&cursor=${cursor}`), admiral).expect(200)).body.data;
          assert.equal(page.total_count, null);
          assert.equal(page.page, null);
          assert.ok(page.events.length > 0, 'a page with a cursor before it is never empty');
          walked.push(...page.events.map((event: AuditEventRow) => event.id));
          cursor = page.next_cursor;
        }
        assert.deepEqual(walked, expected);
        const secondByOffset = (await listAuditEvents(t, queryOf(filter, `limit=${limit}&page=2`), admiral).expect(200)).body.data;
        assert.deepEqual(secondByOffset.events.map((event: AuditEventRow) => event.id), expected.slice(limit, 2 * limit));
      }),
      { numRuns: 40 },
    );
  });

  it('returns events as stored, every field the listing shows, with next_cursor null on the last page', async () => {
    const data = (await listAuditEvents(t, 'actor=officer-1&action=audit.read&limit=100', admiral).expect(200)).body.data;
    // The position in the tree is the listing's order, not a field it shows.
    const expected = model
      .filter((event) => matches(event, { actor: 'officer-1', action: 'audit.read' }))
      .reverse()
      .map((event) => omitPosition(event));
    assert.deepEqual(data.events, expected);
    assert.equal(data.next_cursor, null);
  });

  describe('validation, each naming its field', () => {
    const rejects = async (query: string, ...fields: string[]) => {
      const res = await listAuditEvents(t, query, admiral);
      for (const field of fields) {
        expectErrorBody(res, 400, 'VALIDATION_ERROR', field);
      }
    };

    it('refuses a blank, over-long or control-character actor', async () => {
      for (const actor of ['', '%20%20', 'x'.repeat(257), 'a%00b']) {
        await rejects(`actor=${actor}`, 'actor');
      }
    });

    it('refuses an action that is not one the trail records', async () => {
      for (const action of ['asset.delete', 'ASSET.DECOMMISSION', '']) {
        await rejects(`action=${action}`, 'action');
      }
    });

    it('refuses since and until that are not ISO 8601 instants with an offset', async () => {
      for (const value of ['2026-11-21', '2026-11-21T10:15:30', 'yesterday', '2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '1700000000', '']) {
        await rejects(`since=${encodeURIComponent(value)}`, 'since');
        await rejects(`until=${encodeURIComponent(value)}`, 'until');
      }
    });

    it('refuses a cursor the listing did not write, and a cursor together with page', async () => {
      for (const cursor of ['abc', 'ZTA', 'e42', '%2B%2F', 'ZTQy'.repeat(10), Buffer.from('e-1').toString('base64url')]) {
        await rejects(`cursor=${cursor}`, 'cursor');
      }
      await rejects('cursor=ZTQy&page=2', 'cursor', 'page');
    });
  });

  describe('query plans', () => {
    const EQUALITY = ['actor', 'action', 'outcome', 'asset_id'] as const;
    const VALUES = { actor: 'officer-1', action: 'audit.read', outcome: 'denied', asset_id: 'TIE-0001' };
    const subsets = Array.from({ length: 16 }, (_, mask) => EQUALITY.filter((_, bit) => mask & (1 << bit)));

    /** The statements the listing runs for a filter (time bounds, then the page), captured from the repository on their way to the database. */
    async function statementsOf(filter: Filter, beforeId?: number): Promise<CompiledQuery[]> {
      const captured: Parameters<KyselyPlugin['transformQuery']>[0][] = [];
      const capturing: KyselyPlugin = {
        transformQuery: (args) => {
          captured.push(args);
          return args.node;
        },
        transformResult: async ({ result }) => result,
      };
      const repository = new AuditQueryRepository(t.db.withPlugin(capturing));
      // The constructor compiles its own statements through the plugin too.
      captured.length = 0;
      await repository.findPage(filter as Parameters<AuditQueryRepository['findPage']>[0], { limit: 10, beforeId });
      return captured.map(({ node, queryId }) => t.db.getExecutor().compileQuery(node, queryId));
    }

    async function planOf(statement: CompiledQuery): Promise<string> {
      const explain = engine === 'sqlite' ? 'EXPLAIN QUERY PLAN ' : 'EXPLAIN ';
      const rows = (await t.db.executeQuery(CompiledQuery.raw(explain + statement.sql, [...statement.parameters]))).rows as Record<string, unknown>[];
      return rows.map((row) => String(row.detail ?? row['QUERY PLAN'])).join('\n');
    }

    before(async () => {
      if (engine === 'postgres') {
        // Enough rows, and statistics, that the planner chooses as it would on a real trail.
        const many = Array.from({ length: 20_000 }, (_, index) => ({
          ...model[index % model.length],
          id: MODEL_SIZE + index + 1,
          occurred_at: new Date(START + (MODEL_SIZE + index) * 60_000).toISOString(),
          actor: `officer-${index % 500}`,
          asset_id: `AST-${String(index % 1000).padStart(4, '0')}`,
        }));
        for (let from = 0; from < many.length; from += 1000) {
          await t.db.insertInto('audit_events').values(many.slice(from, from + 1000)).execute();
        }
        await t.db.executeQuery(CompiledQuery.raw('ANALYZE audit_events'));
      }
    });

    it('serves every filter combination, with and without a cursor and a time range, from an index: on SQLite read in id order with no sort, on PostgreSQL never a scan of the table', async () => {
      const report: string[] = [];
      for (const columns of subsets) {
        for (const range of [{}, { since: '2026-11-01T01:00:00Z', until: '2026-11-02T00:00:00Z' }]) {
          for (const beforeId of [undefined, 150]) {
            const filter: Filter = { ...Object.fromEntries(columns.map((column) => [column, VALUES[column]])), ...range };
            const statements = await statementsOf(filter, beforeId);
            const plans = await Promise.all(statements.map(planOf));
            const label = `${JSON.stringify(filter)} cursor ${beforeId ?? 'none'}:\n${plans.join('\n')}`;
            report.push(label);
            const page = plans[plans.length - 1];
            const bounded = beforeId !== undefined || 'since' in filter;
            if (engine === 'sqlite') {
              assert.doesNotMatch(plans.join('\n'), /TEMP B-TREE/, label);
              for (const timeBound of plans.slice(0, -1)) {
                assert.match(timeBound, /^SEARCH audit_events USING COVERING INDEX audit_events_occurred_idx \(occurred_at>\?\)$/, label);
              }
              if (columns.length > 0) {
                // One filter's (column, id) index, read in id order from the bound.
                assert.match(page, new RegExp(`^SEARCH audit_events USING INDEX audit_events_\\w+_idx \\((${columns.join('|')})=\\?${bounded ? ' AND id[<>]\\?' : '\\)'}`), label);
              } else {
                assert.match(page, bounded ? /^SEARCH audit_events USING INTEGER PRIMARY KEY \(rowid[<>]\?/ : /^SCAN audit_events$/, label);
              }
            } else {
              // The planner may instead sort what it estimates few: an id range or an intersection of two filters' indexes (BitmapAnd); never the table.
              assert.doesNotMatch(plans.join('\n'), /Seq Scan/, label);
              assert.match(page, /Index (Only )?Scan/, label);
            }
          }
        }
      }
      if (process.env.SHOW_PLANS) {
        console.log(report.join('\n\n'));
      }
    });
  });
});

describeEachDatabase('GET /v1/audit/events: a cursor walk while events are appended', (engine) => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ engine });
  });
  after(() => t.close());

  it('sees every event that existed when it started exactly once, however many arrive meanwhile', async () => {
    const admiral = t.bearer('admiral-7', 7);
    for (let i = 0; i < 40; i++) {
      await listFleet(t, '').expect(401);
    }
    const existing = (await t.db.selectFrom('audit_events').select('id').orderBy('id', 'desc').execute()).map((row) => row.id);
    const walked: number[] = [];
    let cursor: string | null = null;
    let appended = 0;
    for (let pages = 0; pages === 0 || cursor !== null; pages++) {
      assert.ok(pages < 100, 'the walk ends');
      // Appends race each page read, so events arrive between and during the pages.
      const [page]: Response[] = await Promise.all([
        listAuditEvents(t, `limit=4${cursor ? `&cursor=${cursor}` : ''}`, admiral).expect(200),
        ...Array.from({ length: 3 }, () => listFleet(t, '').expect(401)),
      ]);
      appended += 3;
      walked.push(...page.body.data.events.map((event: AuditEventRow) => event.id));
      cursor = page.body.data.next_cursor;
    }
    assert.equal(new Set(walked).size, walked.length, 'no event twice');
    const newer = walked.filter((id) => id > existing[0]);
    assert.deepEqual(walked.slice(newer.length), existing, 'every event that existed, once, in order');
    assert.ok(newer.length <= 3, 'only the first page can show events appended since the walk started');
    assert.ok(appended > 0);
  });
});
