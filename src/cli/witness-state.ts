import { createHash } from 'node:crypto';
import { mkdirSync, openSync, readdirSync, readFileSync, closeSync, writeFileSync, unlinkSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { type Checkpoint, parseCheckpointBody, splitNote } from '../audit';

/** The file that says which process keeps this state: two witnesses on one folder would each advance it alone. */
const LOCK_FILE = 'witness.lock';

/**
 * A witness's durable state: for each log origin, the latest checkpoint it cosigned (the note as the log
 * signed it, evidence of what the log said), one file per origin in the state folder. A file is written
 * beside and renamed over, each step synced, so a witness killed at any moment leaves the old
 * checkpoint or the new one whole. Advancing an origin runs one request at a time (compare and swap):
 * the check of the old size and the write of the new checkpoint cannot interleave with another's.
 */
export class WitnessState {
  private readonly held = new Map<string, Checkpoint>();
  /** Per origin, the end of the chain of requests under way: each waits for the one before. */
  private readonly queues = new Map<string, Promise<unknown>>();

  private constructor(private readonly folder: string) {}

  /** Opens the folder (created if need be), refusing it while another live witness process holds it. */
  static open(folder: string): WitnessState {
    mkdirSync(folder, { recursive: true });
    claim(join(folder, LOCK_FILE));
    const state = new WitnessState(folder);
    for (const name of readdirSync(folder).filter((file) => file.endsWith('.checkpoint'))) {
      const checkpoint = parseCheckpointBody(splitNote(readFileSync(join(folder, name), 'utf8')).body);
      state.held.set(checkpoint.origin, checkpoint);
    }
    return state;
  }

  /** Runs `step` with the checkpoint held for `origin`, after every step already queued for it has ended. */
  serialized<T>(origin: string, step: (held: Checkpoint | undefined) => Promise<T>): Promise<T> {
    const previous = this.queues.get(origin) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => step(this.held.get(origin)));
    this.queues.set(origin, next);
    void next.finally(() => {
      if (this.queues.get(origin) === next) {
        this.queues.delete(origin);
      }
    }).catch(() => undefined);
    return next;
  }

  /** Stores `note` (signed by the log) as the checkpoint held for its origin; durable when it resolves. */
  async advance(checkpoint: Checkpoint, note: string): Promise<void> {
    const file = join(this.folder, `${createHash('sha256').update(checkpoint.origin).digest('hex')}.checkpoint`);
    const temporary = `${file}.tmp`;
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(note);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
    const folder = await open(this.folder, 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
    this.held.set(checkpoint.origin, checkpoint);
  }

  /** Releases the folder for another witness process. */
  close(): void {
    unlinkSync(join(this.folder, LOCK_FILE));
  }
}

/** Takes the lock file, or takes over one whose process is gone (a witness killed leaves it behind). */
function claim(file: string): void {
  try {
    const handle = openSync(file, 'wx');
    writeFileSync(handle, String(process.pid));
    closeSync(handle);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw error;
    }
    const holder = Number(readFileSync(file, 'utf8'));
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isRunning(holder)) {
      throw new Error(`${file}: another witness (process ${holder}) uses this state folder; two would each advance it alone`, { cause: error });
    }
  }
  writeFileSync(file, String(process.pid));
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
