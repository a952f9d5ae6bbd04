import assert from 'node:assert/strict';
import { ConfigurationError } from '../../src/config';

/** Asserts that loading `env` stops with a ConfigurationError: one line, `Invalid configuration: ...`, naming every fragment. */
export function assertRefused<T>(load: (env: NodeJS.ProcessEnv) => T, env: NodeJS.ProcessEnv, ...fragments: string[]): void {
  assert.throws(
    () => load(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigurationError, `expected ConfigurationError, got ${String(error)}`);
      assert.match(error.message, /^Invalid configuration: /);
      for (const fragment of fragments) {
        assert.ok(error.message.includes(fragment), `the message names ${fragment}: ${error.message}`);
      }
      return true;
    },
  );
}
