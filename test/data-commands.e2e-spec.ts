import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ASSET_COLUMNS } from '../src/assets';
import { AuditWriteRepository } from '../src/audit';
import { loadAppConfig } from '../src/config';
import { type AssetRow, createDatabase, migrateToLatest, type VesselRow } from '../src/database';
import { createTestDatabase, describeEachDatabase, type TestDatabase, type TestEngine, testEngines } from './support/databases';
import { DECOMMISSIONED_ASSET, vesselRecord } from './support/fixtures';
import { type RunResult, runScript, SCRIPTS } from './support/processes';

const SECRET = 'cli-test-secret-that-is-at-least-32-chars';

function workDir(): string {
  return mkdtempSync(join(tmpdir(), 'fleet-registry-data-'));
}

const asset = (assetId: string, fields: Partial<AssetRow> = {}) => ({ asset_id: assetId, asset_type: 'vehicle', former_pilot: 'TK-421', ...fields });

/** A database of its own for a suite, and the commands run against it. */
function useDatabase(engine: TestEngine) {
  const state = {} as { cwd: string; database: TestDatabase; env: Record<string, string> };
  before(async () => {
    state.cwd = workDir();
    state.database = await createTestDatabase(engine, state.cwd);
    state.env = { DATABASE_URL: state.database.url, JWT_SECRET: SECRET };
  });
  after(async () => {
    await state.database.drop();
    rmSync(state.cwd, { recursive: true, force: true });
  });
  return {
    file(name: string, content: unknown): string {
      writeFileSync(join(state.cwd, name), typeof content === 'string' ? content : JSON.stringify(content));
      return name;
    },
    read: (name: string) => readFileSync(join(state.cwd, name), 'utf8'),
    run: (script: string, args: string[]): Promise<RunResult> => runScript(script, args, { cwd: state.cwd, env: state.env, timeout: 300_000 }),
    async withDb<T>(work: (db: ReturnType<typeof createDatabase>) => Promise<T>): Promise<T> {
      const db = createDatabase(loadAppConfig(state.env, state.cwd).database);
      try {
        return await work(db);
      } finally {
        await db.destroy();
      }
    },
    async rows(): Promise<{ assets: AssetRow[]; vessels: VesselRow[] }> {
      return this.withDb(async (db) => ({
        assets: await db.selectFrom('assets').select(ASSET_COLUMNS).orderBy('asset_id').execute(),
        vessels: await db.selectFrom('vessels').selectAll().orderBy('id').execute(),
      }));
    },
  };
}

/** A refusal: exit code 1 (2 for arguments the command cannot use), the message, no stack trace. */
function assertRefused(result: RunResult, ...expected: RegExp[]): void {
  assertExit(result, 1, ...expected);
}

function assertMisused(result: RunResult, ...expected: RegExp[]): void {
  assertExit(result, 2, ...expected);
  assert.match(result.stderr, /Run npm run [a-z:]+ -- --help for the options\n$/);
}

function assertExit(result: RunResult, code: number, ...expected: RegExp[]): void {
  assert.equal(result.code, code, `${result.stdout}${result.stderr}`);
  for (const pattern of expected) {
    assert.match(result.stderr, pattern);
  }
  assert.doesNotMatch(result.stderr, /\n\s+at /);
}

describeEachDatabase('npm run db:import', (engine) => {
  const data = useDatabase(engine);

  it('loads a JSON file into the configured database, without the demo seed, and sums up what it did', async () => {
    const result = await data.run(SCRIPTS.import, [
      data.file('first.json', {
        // A time without milliseconds, stored as the API shows it.
        assets: [asset('TIE-0001'), { ...DECOMMISSIONED_ASSET, decommissioned_at: '2026-01-02T03:04:05Z' }],
        vessels: [vesselRecord('ISD-001'), vesselRecord('ISD-002', { name: 'Devastator' })],
      }),
    ]);

    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Imported 4 records from first\.json into .* in [0-9.]+ s \([0-9,]+ records\/s\)\. assets: 2 inserted, 0 updated; vessels: 2 inserted, 0 updated\n$/);
    const { vessels, assets } = await data.rows();
    assert.deepEqual(vessels.map((vessel) => vessel.id), ['ISD-001', 'ISD-002']);
    assert.deepEqual(assets, [DECOMMISSIONED_ASSET, { ...asset('TIE-0001'), status: 'active', decommission_reason: null, decommissioned_at: null, authorized_by: null }]);
  });

  it('upserts NDJSON by id, counting inserted and updated records', async () => {
    const lines = [
      { kind: 'vessel', ...vesselRecord('ISD-002', { name: 'Renamed' }) },
      { kind: 'vessel', ...vesselRecord('ISD-003') },
      { kind: 'asset', ...asset('TIE-0001', { former_pilot: 'TK-999' }) },
    ];
    const result = await data.run(SCRIPTS.import, [data.file('second.ndjson', `${lines.map((line) => JSON.stringify(line)).join('\n')}\n\n`)]);

    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /assets: 0 inserted, 1 updated; vessels: 1 inserted, 1 updated/);
    const { vessels, assets } = await data.rows();
    assert.deepEqual(vessels.map((vessel) => [vessel.id, vessel.name]), [
      ['ISD-001', 'Avenger'],
      ['ISD-002', 'Renamed'],
      ['ISD-003', 'Avenger'],
    ]);
    assert.equal(assets.find((row) => row.asset_id === 'TIE-0001')?.former_pilot, 'TK-999');
  });

  it('reads a CSV file of one kind, its header naming the fields, with quoted cells and empty cells as absent fields', async () => {
    const csv = [
      'asset_id,asset_type,former_pilot,status,decommission_reason,decommissioned_at,authorized_by',
      'CSV-0001,vehicle,"TK-1, ""Lucky""",,,,',
      'CSV-0002,facility,LX-4431,decommissioned,"Lost, with ""all hands""",2026-03-01T12:00:00+02:00,Admiral Piett',
    ].join('\r\n');
    const result = await data.run(SCRIPTS.import, [data.file('assets.csv', csv), '--kind', 'asset']);

    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /assets: 2 inserted, 0 updated; vessels: 0 inserted, 0 updated/);
    const { assets } = await data.rows();
    assert.deepEqual(assets.find((row) => row.asset_id === 'CSV-0001')?.former_pilot, 'TK-1, "Lucky"');
    assert.deepEqual(assets.find((row) => row.asset_id === 'CSV-0002'), {
      ...asset('CSV-0002', { asset_type: 'facility', former_pilot: 'LX-4431' }),
      status: 'decommissioned',
      decommission_reason: 'Lost, with "all hands"',
      decommissioned_at: '2026-03-01T10:00:00.000Z',
      authorized_by: 'Admiral Piett',
    });
  });

  it('refuses a file with bad records, naming each by index or line and field, and writes nothing', async () => {
    const before = await data.rows();
    const withoutCrew: Record<string, unknown> = vesselRecord('ISD-010');
    delete withoutCrew.crew;
    const json = await data.run(SCRIPTS.import, [
      data.file('bad.json', {
        assets: [asset('NEW-0001'), asset('NEW-0002', { decommissioned_at: '2026-01-02T03:04:05Z' })],
        vessels: [vesselRecord('ISD-009'), withoutCrew, { ...vesselRecord('ISD-011'), crew: 'many', speed: 'fast' }],
      }),
    ]);
    assertRefused(
      json,
      /^Import refused, nothing was written: 3 problems in 5 records read\n/,
      /\n {2}assets\[1\]\.decommissioned_at is only allowed with status "decommissioned"\n/,
      /\n {2}vessels\[1\]\.crew is required\n/,
      /\n {2}vessels\[2\]\.speed is not an allowed field; crew must be a whole number from 0 to 10000000\n/,
    );
    const ndjson = await data.run(SCRIPTS.import, [
      data.file('bad.ndjson', ['{"kind":"vessel","id":"ISD-012"}', '{"kind":"ship"}', '{"kind": "asset", oops}', '[1]'].join('\n')),
    ]);
    assertRefused(
      ndjson,
      /bad\.ndjson line 1: name is required; class is required; length is required; crew is required/,
      /bad\.ndjson line 2: kind must be asset or vessel/,
      /bad\.ndjson line 3: not valid JSON/,
      /bad\.ndjson line 4: must be a JSON object/,
    );
    const csv = await data.run(SCRIPTS.import, [
      data.file('bad.csv', 'id,name,class,length,crew,commander,sector,status\nISD-013,A,B,1 meters,12.5,C,Outer Rim,ok\nISD-014,A,B,1 meters,1,C,Outer Rim\n'),
      '--kind',
      'vessel',
    ]);
    assertRefused(csv, /bad\.csv line 2: crew must be a whole number from 0 to 10000000/, /bad\.csv line 3: has 7 cells where the header has 8/);
    assert.deepEqual(await data.rows(), before);
  });

  it('names the file, line and column of a JSON syntax error, and the line of a CSV one', async () => {
    assertRefused(
      await data.run(SCRIPTS.import, [data.file('broken.json', '{"vessels": [\n  {"id": "ISD-001",, }\n]}')]),
      /^Import refused, nothing was written: 1 problem in 0 records read\n {2}broken\.json line 2, column 20: not valid JSON/,
    );
    assertRefused(await data.run(SCRIPTS.import, [data.file('cut.json', '{"vessels": [{"id": "ISD-001"')]), /cut\.json line 1, column 30: the file ends inside the JSON document/);
    assertRefused(await data.run(SCRIPTS.import, [data.file('quote.csv', 'asset_id,asset_type,former_pilot\nA"B-0001,x,y\n'), '--kind', 'asset']), /quote\.csv: not valid CSV \(.*line 2/);
    assertRefused(
      await data.run(SCRIPTS.import, [data.file('header.csv', 'asset_id,colour\n'), '--kind', 'asset']),
      /header\.csv line 1: the header names an unknown field "colour"/,
    );
  });

  it('refuses a record nested too deep in one line naming the file, the record and the limit, in JSON and NDJSON alike', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    assertRefused(
      await data.run(SCRIPTS.import, [data.file('deep.json', `{"assets": [\n{"asset_id": "DEP-0001", "asset_type": ${deep}}]}`)]),
      /^Import refused, nothing was written: .*\n {2}deep\.json line 2, column \d+: a record nested deeper than 8 levels; nothing was imported\n/,
    );
    assertRefused(
      await data.run(SCRIPTS.import, [data.file('deep.ndjson', `{"kind": "asset", "asset_id": "DEP-0001", "asset_type": "vehicle", "former_pilot": "TK-1"}\n{"kind": "asset", "asset_id": "DEP-0002", "asset_type": ${deep}}\n`)]),
      /^Import refused, nothing was written: .*\n {2}deep\.ndjson line 2, column \d+: a record nested deeper than 8 levels; nothing was imported\n/,
    );
    assert.ok(!(await data.rows()).assets.some((row) => row.asset_id.startsWith('DEP-')), 'nothing was written');
  });

  it('refuses a file that is not of the expected shape', async () => {
    for (const [name, content, expected] of [
      ['list.json', '[1, 2]', /list\.json must hold an object/],
      ['ships.json', { ships: [] }, /ships: unknown list \(expected assets and vessels\)/],
      ['empty.json', '', /empty\.json is empty/],
    ] as const) {
      assertRefused(await data.run(SCRIPTS.import, [data.file(name, content)]), expected);
    }
  });

  it('explains its usage: --help, and a clear message for every bad argument', async () => {
    const help = await data.run(SCRIPTS.import, ['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: npm run db:import -- <file> \[--format json\|ndjson\|csv\] \[--kind asset\|vessel\]/);
    for (const [args, expected] of [
      [[], /^A file is required\. Run npm run db:import -- --help for the options\n$/],
      [['fleet.txt'], /The extension of fleet\.txt names no format: add --format json\|ndjson\|csv/],
      [['fleet.json', '--format', 'xml'], /--format must be json, ndjson, csv, not "xml"/],
      [['fleet.csv'], /A CSV file holds one kind of record: add --kind asset or vessel/],
      [['fleet.csv', '--kind', 'ship'], /--kind must be asset or vessel, not "ship"/],
      [['fleet.json', '--kind', 'asset'], /--kind is for CSV files/],
      [['fleet.json', '--verbose'], /Unknown option --verbose/],
      [['a.json', 'b.json'], /Unexpected argument "b\.json"/],
      [['fleet.json', '--format'], /^--format needs a value\./],
    ] as const) {
      assertMisused(await data.run(SCRIPTS.import, [...args]), expected);
    }
  });

  it('says in one line, without a stack or a system error code, that the file does not exist', async () => {
    const result = await data.run(SCRIPTS.import, ['missing.json']);
    assertRefused(result, /^missing\.json: no such file or folder\. Check the path \(a relative one starts from .+\)\n$/);
    assert.doesNotMatch(result.stderr, /ENOENT/);
  });

  it('streams a large CSV file (50,000 vessels), with a progress line every 10,000 records when stderr is not a terminal', async () => {
    const header = 'id,name,class,length,crew,commander,sector,status';
    const rows = Array.from({ length: 50_000 }, (_, index) => `BIG-${index},Vessel ${index},Imperial II-class,1600 meters,${index},Captain ${index},Mid Rim,operational`);
    const result = await data.run(SCRIPTS.import, [data.file('big.csv', `${header}\n${rows.join('\n')}\n`), '--kind', 'vessel']);

    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Imported 50,000 records .* vessels: 50,000 inserted, 0 updated/);
    const progress = result.stderr.trim().split('\n');
    assert.equal(progress.length, 5, result.stderr);
    progress.forEach((line, index) =>
      assert.match(line, new RegExp(`^${(index + 1) * 10}[,]000 records read, [0-9,]+ records/s, [0-9]+% of the file, about [0-9]+:[0-9]{2} left$`)),
    );
    assert.equal(await data.withDb(async (db) => (await db.selectFrom('vessels').select('id').where('id', 'like', 'BIG-%').execute()).length), 50_000);
  });
});

/**
 * The records every format must carry across unchanged: commas, quotes and non-ASCII text, a decommissioned
 * asset, every sector, and text a spreadsheet would open as a formula (with the quote CSV puts before it, or one already there).
 */
const MOVED_RECORDS = {
  assets: [
    asset('TIE-0001'),
    asset('CSV-0001', { former_pilot: 'TK-1, "Lucky"', asset_type: 'équipement ☄' }),
    asset('CSV-0002', { former_pilot: '=HYPERLINK("http://example.org","TK-2")', asset_type: "'=already quoted" }),
    { ...DECOMMISSIONED_ASSET, decommission_reason: 'Lost at Hoth, with "all hands"' },
    { ...DECOMMISSIONED_ASSET, asset_id: 'OLD-0002', decommission_reason: '@SUM(1+1)', authorized_by: '-General Veers' },
  ],
  vessels: [
    ...['Outer Rim', 'Mid Rim', 'Inner Rim', 'Core Worlds'].map((sector, index) =>
      vesselRecord(`SD-${index}`, { sector: sector as VesselRow['sector'], name: `Vessel "${index}", the ${sector}`, crew: index * 1000, length: `${1600 + index}.5 meters` }),
    ),
    vesselRecord('SD-9', { name: '=1+1', class: '+Class', commander: "''@twice quoted" }),
  ],
};

const enginePairs: [TestEngine, TestEngine][] =
  testEngines().length > 1
    ? [
        ['sqlite', 'postgres'],
        ['postgres', 'sqlite'],
      ]
    : [['sqlite', 'sqlite']];

for (const [from, to] of enginePairs) {
  describe(`npm run db:export, then db:import: ${from} to ${to}`, () => {
    const source = useDatabase(from);
    const target = useDatabase(to);

    before(async () => {
      const seeded = await source.run(SCRIPTS.import, [source.file('records.json', MOVED_RECORDS)]);
      assert.equal(seeded.code, 0, seeded.stderr);
    });

    for (const [format, files] of [
      ['json', [['fleet.json']]],
      ['ndjson', [['fleet.ndjson']]],
      ['csv', [['assets.csv', '--kind', 'asset'], ['vessels.csv', '--kind', 'vessel']]],
    ] as const) {
      it(`moves every record unchanged through ${format}`, async () => {
        await target.withDb(async (db) => {
          await migrateToLatest(db);
          await db.deleteFrom('assets').execute();
          await db.deleteFrom('vessels').execute();
        });
        for (const [file, ...kind] of files) {
          const exported = await source.run(SCRIPTS.export, [file, ...kind]);
          assert.equal(exported.code, 0, exported.stderr);
          assert.match(exported.stdout, new RegExp(`^Exported .* to ${file.replace('.', '\\.')} \\(${format}\\)`));
          if (format === 'csv') {
            assert.doesNotMatch(source.read(file), /(^|,)"?[=+\-@\t\r]/m, 'no cell opens as a formula in a spreadsheet');
          }
          target.file(file, source.read(file));
          const imported = await target.run(SCRIPTS.import, [file, ...kind]);
          assert.equal(imported.code, 0, imported.stderr);
        }
        assert.deepEqual(await target.rows(), await source.rows());
        assert.equal((await target.rows()).vessels.length, MOVED_RECORDS.vessels.length);

        // Exported again from the target, the file is the same, byte for byte.
        for (const [file, ...kind] of files) {
          const again = await target.run(SCRIPTS.export, [`again-${file}`, ...kind]);
          assert.equal(again.code, 0, again.stderr);
          assert.equal(target.read(`again-${file}`), source.read(file));
        }
      });
    }
  });
}

describeEachDatabase('npm run db:export', (engine) => {
  const data = useDatabase(engine);

  it('writes an empty database as a file that imports', async () => {
    await data.withDb(migrateToLatest);
    assert.equal((await data.run(SCRIPTS.export, ['empty.json'])).code, 0);
    assert.equal(data.read('empty.json'), '{"assets": [],\n"vessels": []}\n');
    assert.equal((await data.run(SCRIPTS.import, ['empty.json'])).code, 0);
  });

  it('explains its usage', async () => {
    assert.match((await data.run(SCRIPTS.export, ['--help'])).stdout, /^usage: npm run db:export -- <file>/);
    assertMisused(await data.run(SCRIPTS.export, ['out.csv']), /A CSV file holds one kind of record: add --kind asset or vessel/);
    assertMisused(await data.run(SCRIPTS.export, []), /A file is required/);
  });
});

describeEachDatabase('npm run audit:export', (engine) => {
  const data = useDatabase(engine);
  const EVENTS = 1_200;
  const lines = (text: string) =>
    text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  before(async () => {
    await data.withDb(async (db) => {
      await migrateToLatest(db);
      const audit = new AuditWriteRepository(db);
      for (let index = 0; index < EVENTS; index += 1) {
        await db.transaction().execute((trx) =>
          audit.appendToChain(
            trx,
            {
              action: 'asset.decommission',
              outcome: index % 3 === 0 ? 'allowed' : 'denied',
              reason: index % 3 === 0 ? null : 'INSUFFICIENT_CLEARANCE',
              actor: `officer-${index}`,
              actor_clearance: index % 11,
              asset_id: 'TIE-0001',
              request_id: `request-${index}`,
              ip: '127.0.0.1',
              method: 'DELETE',
              path: '/v1/assets/TIE-0001',
              details: null,
            },
          ),
        );
      }
    });
  });

  it('writes every event to stdout as NDJSON in chain order, each linked to the one before', async () => {
    const result = await data.run(SCRIPTS.auditExport, []);

    assert.equal(result.code, 0, result.stderr);
    const events = lines(result.stdout);
    assert.equal(events.length, EVENTS);
    assert.deepEqual(Object.keys(events[0]), [
      'id', 'occurred_at', 'action', 'outcome', 'reason', 'actor', 'actor_clearance', 'asset_id', 'request_id', 'ip', 'method', 'path', 'prev_hash', 'details', 'hash', 'leaf_hash',
    ]);
    events.forEach((event, index) => {
      assert.equal(event.id, index + 1);
      assert.equal(event.prev_hash, index === 0 ? '0'.repeat(64) : events[index - 1].hash);
    });
    assert.equal(events[1].actor_clearance, 1);
    assert.match(result.stderr, new RegExp(`^Exported 1,200 audit events from .*, the last with id ${EVENTS} \\(go on with --after-id ${EVENTS}\\)\\n$`));
  });

  it('goes on after a given id, into a file', async () => {
    const result = await data.run(SCRIPTS.auditExport, ['--after-id', '1150', '--output', 'tail.ndjson']);

    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, '');
    assert.deepEqual(lines(data.read('tail.ndjson')).map((event) => event.id), Array.from({ length: 50 }, (_, index) => 1151 + index));
    assert.equal((await data.run(SCRIPTS.auditExport, ['--after-id', String(EVENTS)])).stdout, '');
  });

  it('starts at the first event at or after a given time', async () => {
    const since = await data.withDb(async (db) => (await db.selectFrom('audit_events').select('occurred_at').where('id', '=', 700).executeTakeFirstOrThrow()).occurred_at);
    const firstId = await data.withDb(async (db) => (await db.selectFrom('audit_events').select('id').where('occurred_at', '>=', since).orderBy('id').executeTakeFirstOrThrow()).id);
    // The same instant, written with an offset.
    const sinceWithOffset = new Date(new Date(since).getTime() + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    const result = await data.run(SCRIPTS.auditExport, ['--since', sinceWithOffset]);

    assert.equal(result.code, 0, result.stderr);
    const ids = lines(result.stdout).map((event) => event.id);
    assert.equal(ids[0], firstId);
    assert.equal(ids.at(-1), EVENTS);
    assert.equal(ids.length, EVENTS - firstId + 1);
    assert.equal((await data.run(SCRIPTS.auditExport, ['--since', '2999-01-01T00:00:00Z'])).stdout, '');
  });

  it('explains its usage: --help, and a clear message for every bad value', async () => {
    assert.match((await data.run(SCRIPTS.auditExport, ['--help'])).stdout, /^usage: npm run audit:export -- \[--since <time> \| --after-id <id>\]/);
    for (const [args, expected] of [
      [['--since', 'yesterday'], /--since must be an ISO 8601 time with Z or an offset, e.g\. 2026-11-22T06:00:00Z, not "yesterday"/],
      [['--since', '2026-11-22T06:00:00'], /--since must be an ISO 8601 time with Z or an offset/],
      [['--after-id', '-1'], /--after-id must be a whole number, 0 or more, not "-1"/],
      [['--after-id', '1', '--since', '2026-11-22T06:00:00Z'], /Give --since or --after-id, not both/],
      [['--output'], /--output needs a value/],
      [['events.ndjson'], /Unexpected argument "events\.ndjson"/],
    ] as const) {
      assertMisused(await data.run(SCRIPTS.auditExport, [...args]), expected);
    }
  });
});
