import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Options, parseOptions, UsageError } from './command-options';

const OPTIONS: Options = { sub: { type: 'string' }, 'private-key': { type: 'string' }, force: { type: 'boolean' } };

/** The environment npm gives `npm run token --sub x --clearance 7`: the flags are npm's settings now. */
const npmRun = (settings: Record<string, string>) => ({ npm_lifecycle_event: 'token', ...settings });

describe('parseOptions run by npm', () => {
  it('names the options npm kept for itself when -- was forgotten, and says what to type, without the pointer to --help', () => {
    assert.throws(
      () => parseOptions(['x', 'key.pem'], OPTIONS, 0, npmRun({ npm_config_sub: 'true', npm_config_private_key: 'true' })),
      (error: unknown) =>
        error instanceof UsageError &&
        error.message === 'npm took --sub and --private-key for itself: put -- before the options, as in npm run token -- --sub ...' &&
        !error.pointsToHelp,
    );
    assert.throws(() => parseOptions([], OPTIONS, 0, npmRun({ npm_config_sub: 'x' })), /npm took --sub for itself/);
  });

  it("leaves npm's own boolean settings alone, and reads the options when -- came before them", () => {
    const parsed = parseOptions(['--sub', 'x', '--force'], OPTIONS, 0, npmRun({ npm_config_force: 'true' }));
    assert.ok(!('help' in parsed));
    assert.equal(parsed.text('sub'), 'x');
    assert.equal(parsed.flag('force'), true);
  });

  it('looks for npm settings only when run by an npm script', () => {
    assert.throws(() => parseOptions(['x'], OPTIONS, 0, { npm_config_sub: 'true' }), /Unexpected argument "x"$/);
  });
});
