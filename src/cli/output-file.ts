import { randomBytes } from 'node:crypto';
import { lstat, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** The signals a person or a supervisor stops a command with; SIGKILL cannot be caught. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Writes what `source` gives into `path`, all or nothing: into a new file beside it first, created
 * exclusively and readable by its owner only (an export holds the registry's records or its audit
 * trail), flushed to disk and then renamed onto `path`. An export that fails, or is stopped by a signal,
 * leaves `path` as it was and no file of its own; SIGKILL leaves the path as it was and the hidden
 * `.<name>.<random>.partial` beside it. A symbolic link at `path` is refused even with `force`,
 * since a link there would send the export elsewhere; any existing file unless `force`.
 */
export async function writeOutputFile(path: string, source: Readable, { force }: { force: boolean }): Promise<void> {
  await assertWritable(path, force);
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`);
  const handle = await open(temporary, 'wx', 0o600).catch((error: NodeJS.ErrnoException) => {
    // Named by the path the caller gave: the temporary name would only puzzle them.
    throw Object.assign(error, { path });
  });
  const removeAndStop = (signal: NodeJS.Signals) => {
    void rm(temporary, { force: true }).finally(() => {
      stopListening();
      process.kill(process.pid, signal);
    });
  };
  const stopListening = () => STOP_SIGNALS.forEach((signal) => process.off(signal, removeAndStop));
  STOP_SIGNALS.forEach((signal) => process.once(signal, removeAndStop));
  try {
    await pipeline(source, handle.createWriteStream({ flush: true }));
    await assertWritable(path, force);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  } finally {
    stopListening();
  }
}

/** Refuses, in one line naming the path and what to do, a symbolic link at `path` always, anything else that is not a regular file, and a file unless `force`. */
async function assertWritable(path: string, force: boolean): Promise<void> {
  const existing = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') {
      return undefined;
    }
    throw error;
  });
  if (existing === undefined) {
    return;
  }
  if (existing.isSymbolicLink()) {
    throw new Error(`${path} is a symbolic link: an export does not write through one. Name the file itself, or remove the link`);
  }
  if (!existing.isFile()) {
    throw new Error(`${path} exists and is not a regular file: name a file to write`);
  }
  if (!force) {
    throw new Error(`${path} exists: pass --force to overwrite it, or name another file`);
  }
}
