// Run by test/sqlite-statement-gc.e2e-spec.ts as `node --expose-gc statement-churn.js <folder>`: opens and
// drops databases and prepared statements on the main thread and in worker threads at once, under
// allocation pressure that makes V8 collect from its own tasks between turns of the event loop, outside
// any JavaScript (where an addon's destructor finds no current environment), and with forced collections
// too. It ends with statements still alive, so the collector meets them in every order a process can:
// during the run, after their database is closed or dropped, after their worker's environment is gone,
// and at the process's own exit.
import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const ROUNDS = 100;
const WORKERS = 4;
const STATEMENTS_PER_ROUND = 200;

interface Churner {
  folder: string;
  /** Names this thread's database files, so that no two threads share one. */
  name: string;
}

function collect(): void {
  if (gc === undefined) {
    throw new Error('run with node --expose-gc');
  }
  gc();
}

/** A round: a database, rows written through one statement, many statements prepared once and dropped. */
function round({ folder, name }: Churner, index: number, survivors: unknown[]): number {
  const database = new BetterSqlite3(index % 2 === 0 ? ':memory:' : join(folder, `${name}-${index % 5}.sqlite`));
  let prepared = 0;
  const prepare = (sql: string) => {
    prepared++;
    return database.prepare(sql);
  };
  database.exec('CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, value TEXT)');
  const insert = prepare('INSERT INTO rows (value) VALUES (?)');
  database.transaction(() => {
    for (let row = 0; row < 50; row++) {
      insert.run(`row ${row}`);
    }
  })();
  for (let limit = 1; limit <= STATEMENTS_PER_ROUND; limit++) {
    prepare(`SELECT value, '${'padding '.repeat(25)}' FROM rows WHERE id > ? LIMIT ${limit}`).all(limit);
  }
  // An iteration left open keeps its statement busy until the collector ends it; close() refuses a database
  // with one open, so the rounds that close end theirs first.
  const rows = prepare('SELECT * FROM rows').iterate();
  rows.next();
  if (index % 3 === 0) {
    rows.return?.();
    database.close();
  } else if (index % 3 === 1) {
    survivors.push(prepare('SELECT count(*) FROM rows'));
  }
  return prepared;
}

async function churn(churner: Churner, survivors: unknown[]): Promise<number> {
  let prepared = 0;
  for (let index = 0; index < ROUNDS; index++) {
    prepared += round(churner, index, survivors);
    if (index % 25 === 24) {
      collect();
      // Half of what was kept goes now, the rest lives on to the end.
      survivors.splice(0, survivors.length / 2);
    }
    await nextTurn();
  }
  collect();
  return prepared;
}

function runWorker(churner: Churner): Promise<number> {
  const worker = new Worker(__filename, { workerData: churner });
  let prepared = 0;
  worker.once('message', (count: number) => (prepared = count));
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve(prepared) : reject(new Error(`a worker exited with code ${code}`))));
  });
}

async function main(folder: string): Promise<void> {
  const survivors: unknown[] = [];
  const workers = Array.from({ length: WORKERS }, (_, index) => runWorker({ folder, name: `worker-${index}` }));
  const counts = await Promise.all([churn({ folder, name: 'main' }, survivors), ...workers]);
  const prepared = counts.reduce((sum, count) => sum + count, 0);
  process.stdout.write(`prepared ${prepared} statements in ${ROUNDS * (WORKERS + 1)} databases, ${survivors.length} left to the exit\n`);
}

if (isMainThread) {
  void main(process.argv[2]);
} else {
  // The worker ends with statements alive: its environment goes before they are collected.
  void churn(workerData as Churner, []).then((prepared) => parentPort?.postMessage(prepared));
}
