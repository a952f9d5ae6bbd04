import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SequencerSleep } from './sequencer-sleep';

/** How long `sleeping` took to resolve, in ms. */
async function timed(sleeping: Promise<void>): Promise<number> {
  const started = performance.now();
  await sleeping;
  return performance.now() - started;
}

describe('SequencerSleep', () => {
  const never = new AbortController().signal;

  it('sleeps its time when nothing wakes it', async () => {
    assert.ok((await timed(new SequencerSleep().sleep(50, never))) >= 45);
  });

  it('ends at a wake', async () => {
    const sut = new SequencerSleep();
    const sleeping = sut.sleep(10_000, never);
    setTimeout(() => sut.wake(), 20);
    assert.ok((await timed(sleeping)) < 5_000);
  });

  it('does not sleep after a wake that came while the sequencer looked, and sleeps again after that', async () => {
    const sut = new SequencerSleep();
    sut.looking();
    sut.wake();
    assert.ok((await timed(sut.sleep(10_000, never))) < 5_000);
    assert.ok((await timed(sut.sleep(50, never))) >= 45);
  });

  it('forgets a wake that came before the sequencer looked: that look found its events', async () => {
    const sut = new SequencerSleep();
    sut.wake();
    sut.looking();
    assert.ok((await timed(sut.sleep(50, never))) >= 45);
  });

  it('ends when its signal aborts, and does not begin once it has', async () => {
    const sut = new SequencerSleep();
    const stopping = new AbortController();
    const sleeping = sut.sleep(10_000, stopping.signal);
    setTimeout(() => stopping.abort(), 20);
    assert.ok((await timed(sleeping)) < 5_000);
    assert.ok((await timed(sut.sleep(10_000, stopping.signal))) < 5_000);
  });
});
