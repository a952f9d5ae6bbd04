// `npm run start:dev`: `nest start --watch` in a process group of its own, which a signal to this
// process (npm passes SIGTERM, SIGINT and SIGHUP on) reaches whole: the watcher, the shell it starts the
// server in, and the server, which drains as it does under `npm start`. Nest alone would pass the
// signal to that shell only, and leave the server running.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import process from 'node:process';
import { clearInterval, setInterval } from 'node:timers';

const nest = createRequire(import.meta.url).resolve('@nestjs/cli/bin/nest.js');
const watcher = spawn(process.execPath, [nest, 'start', '--watch'], {
  detached: true,
  // A process group outside the terminal's foreground one must not read the terminal.
  stdio: ['ignore', 'inherit', 'inherit'],
});

/** Signals every process of the group; false once none is left. */
function signalGroup(signal) {
  try {
    process.kill(-watcher.pid, signal);
    return true;
  } catch {
    return false;
  }
}

let signalled = 0;
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(signal, () => {
    signalled += 1;
    // A second signal does not wait for the drain.
    signalGroup(signalled === 1 ? signal : 'SIGKILL');
  });
}

// The watcher may exit before the server has drained: this process ends when the whole group has.
watcher.on('exit', (code) => {
  if (signalled === 0) {
    signalGroup('SIGTERM');
  }
  const poll = setInterval(() => {
    if (!signalGroup(0)) {
      clearInterval(poll);
      process.exit(code ?? 0);
    }
  }, 100);
});
