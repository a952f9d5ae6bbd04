import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase, type TestEngine, testEngines } from './support/databases';
import { DECOMMISSIONED_ASSET, vesselRecord } from './support/fixtures';
import { migrateAndImport, type RunResult, runScript, SCRIPTS } from './support/processes';
import { waitUntil } from './support/wait';

const RECORDS = { assets: [DECOMMISSIONED_ASSET], vessels: [vesselRecord('ISD-001'), vesselRecord('ISD-002')] };

/** Each export command, the arguments that send it to `file`, and the table it reads last (whose lock holds it halfway). */
const EXPORTS = [
  { name: 'db:export', script: SCRIPTS.export, to: (file: string) => [file], lastTable: 'vessels' },
  { name: 'audit:export', script: SCRIPTS.auditExport, to: (file: string) => ['--output', file], lastTable: 'audit_events' },
] as const;

type Export = (typeof EXPORTS)[number];

/** A work folder with a migrated database holding RECORDS, and the commands run in it. */
function useExports(engine: TestEngine) {
  const state = {} as { cwd: string; database: TestDatabase; env: Record<string, string> };
  before(async () => {
    state.cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-export-'));
    state.database = await createTestDatabase(engine, state.cwd);
    state.env = { DATABASE_URL: state.database.url };
    await migrateAndImport(state.cwd, state.env, RECORDS);
  });
  after(async () => {
    await state.database.drop();
    rmSync(state.cwd, { recursive: true, force: true });
  });
  return {
    state,
    path: (name: string) => join(state.cwd, name),
    read: (name: string) => readFileSync(join(state.cwd, name), 'utf8'),
    write: (name: string, content: string) => writeFileSync(join(state.cwd, name), content),
    files: () => readdirSync(state.cwd).sort(),
    remove: (...names: string[]) => names.forEach((name) => rmSync(join(state.cwd, name), { force: true })),
    run: (command: Export, file: string, ...more: string[]): Promise<RunResult> =>
      runScript(command.script, [...command.to(file), ...more], { cwd: state.cwd, env: state.env }),
    start: (command: Export, file: string, ...more: string[]): ChildProcess =>
      spawn(process.execPath, [command.script, ...command.to(file), ...more], {
        cwd: state.cwd,
        env: { PATH: process.env.PATH, NODE_ENV: 'test', ...state.env },
        stdio: 'ignore',
      }),
  };
}

/** Exit code 1 and one line on stderr, matching each pattern. */
function assertRefusedInOneLine(result: RunResult, ...expected: RegExp[]): void {
  assert.equal(result.code, 1, `${result.stdout}${result.stderr}`);
  assert.match(result.stderr, /^[^\n]+\n$/);
  for (const pattern of expected) {
    assert.match(result.stderr, pattern);
  }
}

describe('exports into a file [sqlite]', () => {
  const exports = useExports('sqlite');

  for (const command of EXPORTS) {
    it(`${command.name}: refuses a symbolic link at the output path, even with --force, and leaves what it points to as it was`, async () => {
      exports.write('precious.txt', 'precious\n');
      symlinkSync('precious.txt', exports.path('link.ndjson'));
      symlinkSync('nowhere.ndjson', exports.path('dangling.ndjson'));
      const before = exports.files();
      try {
        for (const link of ['link.ndjson', 'dangling.ndjson']) {
          for (const force of [[], ['--force']]) {
            assertRefusedInOneLine(await exports.run(command, link, ...force), new RegExp(`${link.replace('.', '\\.')} is a symbolic link: .*Name the file itself`));
          }
          assert.ok(lstatSync(exports.path(link)).isSymbolicLink());
        }
        assert.equal(exports.read('precious.txt'), 'precious\n');
        assert.ok(!existsSync(exports.path('nowhere.ndjson')), 'nothing is created through a dangling link');
        assert.deepEqual(exports.files(), before, 'no file is left behind');
      } finally {
        exports.remove('precious.txt', 'link.ndjson', 'dangling.ndjson', 'nowhere.ndjson');
      }
    });

    it(`${command.name}: refuses an existing file unless --force, which replaces it whole with a file only its owner may read`, async () => {
      try {
        assert.equal((await exports.run(command, 'fresh.ndjson')).code, 0);
        assert.equal(statSync(exports.path('fresh.ndjson')).mode & 0o777, 0o600);
        exports.write('existing.ndjson', 'kept\n');
        const before = exports.files();

        assertRefusedInOneLine(await exports.run(command, 'existing.ndjson'), /existing\.ndjson exists: pass --force to overwrite it/);
        assert.equal(exports.read('existing.ndjson'), 'kept\n');
        assert.deepEqual(exports.files(), before);

        const forced = await exports.run(command, 'existing.ndjson', '--force');
        assert.equal(forced.code, 0, forced.stderr);
        assert.equal(exports.read('existing.ndjson'), exports.read('fresh.ndjson'));
        assert.equal(statSync(exports.path('existing.ndjson')).mode & 0o777, 0o600);
        assert.deepEqual(exports.files(), before, 'no temporary file is left behind');
      } finally {
        exports.remove('fresh.ndjson', 'existing.ndjson');
      }
    });

    it(`${command.name}: refuses a SQLite database that is not there, creating no folder, no database and no export`, async () => {
      const before = exports.files();
      for (const location of ['typo/registry.sqlite', 'registyr.sqlite']) {
        const result = await runScript(command.script, command.to('out.ndjson'), { cwd: exports.state.cwd, env: { DATABASE_URL: `sqlite:${location}` } });
        assertRefusedInOneLine(result, new RegExp(`No SQLite database at ${exports.path(location).replaceAll('.', '\\.')}: check DATABASE_URL`));
      }
      assert.deepEqual(exports.files(), before);
    });
  }
});

describe('--force', () => {
  it('takes no value, and audit:export takes it with --output alone: exit code 2, named', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-export-'));
    try {
      for (const [script, args, expected] of [
        [SCRIPTS.auditExport, ['--force'], /^--force replaces the --output file: add --output <file>\. Run npm run audit:export -- --help/],
        [SCRIPTS.auditExport, ['--output', 'events.ndjson', '--force=yes'], /^--force takes no value\. /],
        [SCRIPTS.export, ['fleet.json', '--force=no'], /^--force takes no value\. /],
      ] as const) {
        const result = await runScript(script, [...args], { cwd });
        assert.equal(result.code, 2, result.stderr);
        assert.match(result.stderr, expected);
      }
      assert.deepEqual(readdirSync(cwd), [], 'nothing is opened or written');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe('audit:verify', () => {
  it('refuses a SQLite database that is not there, creating no folder and no database', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-verify-'));
    try {
      for (const location of ['typo/registry.sqlite', 'registyr.sqlite']) {
        const result = await runScript(SCRIPTS.auditVerify, [], { cwd, env: { DATABASE_URL: `sqlite:${location}` } });
        assertRefusedInOneLine(result, new RegExp(`No SQLite database at ${join(cwd, location).replaceAll('.', '\\.')}: check DATABASE_URL`));
      }
      assert.deepEqual(readdirSync(cwd), [], 'nothing is created');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

if (testEngines().includes('postgres')) {
  describe('exports stopped halfway [postgres]', () => {
    const exports = useExports('postgres');

    /** Holds an exclusive lock on `table` until the returned release, so that an export reading it waits there, halfway. */
    async function lockTable(table: string): Promise<{ release: () => Promise<void>; waitingPid: () => Promise<number | undefined> }> {
      const client = new Client({ connectionString: exports.state.database.url });
      await client.connect();
      await client.query('BEGIN');
      await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
      return {
        release: async () => {
          await client.query('ROLLBACK');
          await client.end();
        },
        waitingPid: async () => {
          const { rows } = await client.query<{ pid: number }>(`SELECT pid FROM pg_locks WHERE NOT granted AND relation = '${table}'::regclass`);
          return rows[0]?.pid;
        },
      };
    }

    /** Starts `command` into fleet.ndjson over an older one (--force), and returns once it waits halfway with its temporary file written. */
    async function exportHalfway(command: Export): Promise<{ child: ChildProcess; lock: Awaited<ReturnType<typeof lockTable>>; before: string[] }> {
      exports.write('fleet.ndjson', 'the last good export\n');
      const before = exports.files();
      const lock = await lockTable(command.lastTable);
      const child = exports.start(command, 'fleet.ndjson', '--force');
      try {
        await waitUntil(async () => (await lock.waitingPid()) !== undefined, `${command.name} never reached ${command.lastTable}`, 20_000);
        assert.ok(exports.files().length > before.length, 'the export is writing a file of its own meanwhile');
      } catch (error) {
        child.kill('SIGKILL');
        await lock.release();
        throw error;
      }
      return { child, lock, before };
    }

    for (const command of EXPORTS) {
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        it(`${command.name}: stopped by ${signal} halfway, leaves the file that was there and nothing else`, async () => {
          const { child, lock, before } = await exportHalfway(command);
          try {
            child.kill(signal);
            const [code, received] = (await once(child, 'exit')) as [number | null, string | null];
            assert.deepEqual([code, received], [null, signal]);
          } finally {
            await lock.release();
          }
          assert.equal(exports.read('fleet.ndjson'), 'the last good export\n');
          assert.deepEqual(exports.files(), before);
        });
      }

      it(`${command.name}: failing halfway (its connection cut), exits 1 and leaves the file that was there and nothing else`, async () => {
        const { child, lock, before } = await exportHalfway(command);
        try {
          const pid = await lock.waitingPid();
          const admin = new Client({ connectionString: exports.state.database.url });
          await admin.connect();
          await admin.query('SELECT pg_terminate_backend($1)', [pid]);
          await admin.end();
          const [code] = (await once(child, 'exit')) as [number | null];
          assert.equal(code, 1);
        } finally {
          await lock.release();
        }
        assert.equal(exports.read('fleet.ndjson'), 'the last good export\n');
        assert.deepEqual(exports.files(), before);
      });

      it(`${command.name}: killed halfway (SIGKILL), leaves the file that was there untouched`, async () => {
        const { child, lock } = await exportHalfway(command);
        try {
          child.kill('SIGKILL');
          await once(child, 'exit');
        } finally {
          await lock.release();
        }
        assert.equal(exports.read('fleet.ndjson'), 'the last good export\n');
        exports.remove(...exports.files().filter((file) => file.endsWith('.partial')));
      });
    }
  });
}
