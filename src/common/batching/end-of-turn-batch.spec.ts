import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EndOfTurnBatch } from './end-of-turn-batch';

const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('EndOfTurnBatch', () => {
  it('handles the items of a turn together when it ends, in the order they came', async () => {
    const handled: number[][] = [];
    const sut = new EndOfTurnBatch<number>((items) => handled.push([...items]));
    sut.add(1);
    sut.add(2);
    assert.deepEqual(handled, []);

    await endOfTurn();
    assert.deepEqual(handled, [[1, 2]]);
  });

  it('handles what is gathered when flushed early, and each item once', async () => {
    const handled: number[][] = [];
    const sut = new EndOfTurnBatch<number>((items) => handled.push([...items]));
    sut.add(1);
    sut.flush();
    sut.add(2);

    await endOfTurn();
    assert.deepEqual(handled, [[1], [2]]);
  });

  it('calls nothing when flushed with nothing gathered', () => {
    let calls = 0;
    const sut = new EndOfTurnBatch<number>(() => calls++);
    sut.flush();
    assert.equal(calls, 0);
  });
});
