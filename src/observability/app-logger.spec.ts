import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { AppLogger, wantsJsonLogs } from './app-logger';

describe('AppLogger', () => {
  let written: { stream: 'stdout' | 'stderr'; text: string }[];

  beforeEach(() => {
    written = [];
    for (const stream of ['stdout', 'stderr'] as const) {
      // The test runner's own reports, in Buffers, pass by.
      const write = process[stream].write.bind(process[stream]) as (chunk: unknown) => boolean;
      mock.method(process[stream], 'write', (chunk: unknown) => (typeof chunk === 'string' ? written.push({ stream, text: chunk }) > 0 : write(chunk)));
    }
  });
  afterEach(() => mock.restoreAll());

  /** Every line written so far, stdout's once the turn of the event loop has ended. */
  const parsed = () => written.flatMap(({ text }) => text.split('\n').filter(Boolean)).map((line) => JSON.parse(line) as Record<string, unknown>);
  const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('writes one JSON line with a UTC time, the LOG_LEVEL name of the level and the fields passed at the top level', async () => {
    new AppLogger({ level: 'info', json: true }).log('request completed', { request_id: 'r-1', status: 200 }, 'HTTP');
    await endOfTurn();
    assert.equal(written.length, 1);
    assert.match(written[0].text, /^\{.*\}\n$/);
    const [line] = parsed();
    assert.match(String(line.time), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.deepEqual({ ...line, time: undefined, pid: undefined }, {
      time: undefined,
      pid: undefined,
      level: 'info',
      msg: 'request completed',
      context: 'HTTP',
      request_id: 'r-1',
      status: 200,
    });
  });

  it('writes the access line\'s fields in the order given, leaves out undefined ones, and keeps the framework\'s fields over a caller\'s', async () => {
    new AppLogger({ level: 'info', json: true }).log('request completed', { request_id: 'r-1', status: 200, duration_ms: 1.25, actor: undefined, level: 'x', pid: 0 }, 'HTTP');
    await endOfTurn();
    assert.equal(written.length, 1);
    assert.match(written[0].text, /^\{"time":"[^"]+","level":"info","msg":"request completed","pid":\d+,"context":"HTTP","request_id":"r-1","status":200,"duration_ms":1.25\}\n$/);
  });

  it("makes a line of flat fields as ConsoleLogger's general path makes it for fields holding an object", async () => {
    const logger = new AppLogger({ level: 'info', json: true });
    logger.log('request completed', { request_id: 'r-1', status: 200, actor: null, level: 'x' }, 'HTTP');
    logger.log('request completed', { request_id: 'r-1', status: 200, actor: null, level: 'x', nested: { kept: true } }, 'HTTP');
    await endOfTurn();
    const [flat, general] = written[0].text.split('\n').filter(Boolean).map((line) => line.replace(/"time":"[^"]+"/, '"time":"T"'));
    assert.equal(general, flat.replace(/\}$/, ',"nested":{"kept":true}}'));
  });

  it("writes the stdout lines of one turn of the event loop in one write at its end, and any line to stderr after them", async () => {
    const logger = new AppLogger({ level: 'info', json: true });
    logger.log('request completed', { request_id: 'r-1' }, 'HTTP');
    logger.log('request completed', { request_id: 'r-2' }, 'HTTP');
    assert.equal(written.length, 0);
    await endOfTurn();
    assert.deepEqual(written.map(({ text }) => text.split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { request_id: string }).request_id)), [['r-1', 'r-2']]);

    written = [];
    logger.log('request completed', { request_id: 'r-3' }, 'HTTP');
    logger.error('failed');
    assert.deepEqual(written.map(({ stream }) => stream), ['stdout', 'stderr']);
    assert.deepEqual(parsed().map(({ msg }) => msg), ['request completed', 'failed']);
  });

  it('writes the lines still waiting when the process exits', () => {
    const script = `new (require(${JSON.stringify(join(__dirname, 'app-logger'))}).AppLogger)({ level: 'info', json: true }).log('request completed', { request_id: 'r-1' }, 'HTTP'); process.exit(0);`;
    const stdout = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.equal((JSON.parse(stdout) as { request_id: string }).request_id, 'r-1');
  });

  it("writes Nest's module and route wiring at debug, not info", async () => {
    const wiring = (level: 'info' | 'debug') => {
      const logger = new AppLogger({ level, json: true });
      logger.log('AssetsModule dependencies initialized', 'InstanceLoader');
      logger.log('AssetsController {/v1/assets}:', 'RoutesResolver');
      logger.log('Mapped {/v1/assets, GET} route', 'RouterExplorer');
      logger.log('Nest application successfully started', 'NestApplication');
    };
    wiring('info');
    await endOfTurn();
    assert.deepEqual(parsed().map(({ msg }) => msg), ['Nest application successfully started']);
    written = [];
    wiring('debug');
    await endOfTurn();
    assert.deepEqual(parsed().map(({ level, context }) => [level, context].join(' ')), ['debug InstanceLoader', 'debug RoutesResolver', 'debug RouterExplorer', 'info NestApplication']);
  });

  it('keeps the levels up to LOG_LEVEL and drops the rest', async () => {
    const logger = new AppLogger({ level: 'warn', json: true });
    logger.fatal('f');
    logger.error('e');
    logger.warn('w');
    logger.log('i');
    logger.log('i', { status: 200 }, 'HTTP');
    logger.debug('d');
    logger.verbose('t');
    await endOfTurn();
    assert.deepEqual(parsed().map(({ level }) => level), ['fatal', 'error', 'warn']);
    written = [];
    new AppLogger({ level: 'trace', json: true }).verbose('t');
    await endOfTurn();
    assert.deepEqual(parsed().map(({ level }) => level), ['trace']);
  });

  it('puts an error and its stack inside its one line, on stderr', () => {
    new AppLogger({ level: 'info', json: true }).error(new Error('boom'), { request_id: 'r-2' }, 'HTTP');
    assert.equal(written.length, 1);
    assert.equal(written[0].stream, 'stderr');
    const [line] = parsed();
    assert.equal(line.msg, 'boom');
    assert.equal(line.request_id, 'r-2');
    assert.match(String((line.error as { stack: string }).stack), /Error: boom\n\s+at /);
  });

  it('logs JSON except on a terminal outside production', () => {
    assert.equal(wantsJsonLogs(false, { isTTY: true }), false);
    assert.equal(wantsJsonLogs(true, { isTTY: true }), true);
    assert.equal(wantsJsonLogs(false, {}), true);
  });
});
