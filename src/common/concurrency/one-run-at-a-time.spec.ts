import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OneRunAtATime } from './one-run-at-a-time';

/** No job here fails: a failure is the test's. */
const unexpected = (error: unknown) => assert.fail(String(error));

describe('OneRunAtATime', () => {
  it('runs the job once more after a run during which it was called, however many calls came', async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const sut = new OneRunAtATime(async () => {
      runs++;
      if (runs === 1) {
        await new Promise<void>((resolve) => (release = resolve));
      }
    }, unexpected);
    const first = sut.run();
    await Promise.all([sut.run(), sut.run(), sut.run()]);
    release();
    await first;
    assert.equal(runs, 2);
  });

  it('runs again while the job asks for it', async () => {
    let runs = 0;
    const sut = new OneRunAtATime(async () => ++runs < 3, unexpected);
    await sut.run();
    assert.equal(runs, 3);
  });

  it('hands a failure to onFailure, and starts afresh at the next call', async () => {
    const failures: unknown[] = [];
    let runs = 0;
    const sut = new OneRunAtATime(async () => {
      runs++;
      throw new Error(`run ${runs}`);
    }, (error) => failures.push((error as Error).message));
    await sut.run();
    await sut.run();
    assert.deepEqual(failures, ['run 1', 'run 2']);
  });
});
