import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from './command-options';
import { parseTokenArguments } from './token-arguments';

function refuses(args: string[], expected: RegExp) {
  assert.throws(
    () => parseTokenArguments(args),
    (error: unknown) => error instanceof UsageError && expected.test(error.message),
  );
}

describe('parseTokenArguments', () => {
  it('reads the subject, clearance, lifetime and kid', () => {
    assert.deepEqual(parseTokenArguments(['--sub', 'officer-7', '--clearance', '7', '--ttl', '15m', '--kid', 'k1']), {
      sub: 'officer-7',
      clearance: 7,
      ttl: '15m',
      kid: 'k1',
      privateKey: undefined,
    });
  });

  it('gives a token one hour by default', () => {
    assert.equal((parseTokenArguments(['--sub', 'o', '--clearance', '0']) as { ttl: string }).ttl, '1h');
  });

  it('asks for the usage text with --help or -h, whatever else is given', () => {
    assert.deepEqual(parseTokenArguments(['--help']), { help: true });
    assert.deepEqual(parseTokenArguments(['-h', '--sub', 'o']), { help: true });
  });

  it('refuses a clearance out of 0..10 or not whole, naming the value', () => {
    refuses(['--sub', 'o', '--clearance', '-1'], /--clearance must be a whole number from 0 to 10, not "-1"/);
    refuses(['--sub', 'o', '--clearance', '7.5'], /not "7\.5"/);
    refuses(['--sub', 'o', '--clearance', '11'], /not "11"/);
    refuses(['--sub', 'o', '--clearance', 'high'], /not "high"/);
  });

  it('names a missing subject or clearance', () => {
    refuses(['--clearance', '7'], /--sub is required/);
    refuses(['--sub', 'o'], /--clearance is required/);
    refuses(['--sub', '--clearance', '7'], /--sub needs a value/);
    refuses(['--sub', 'o', '--clearance'], /--clearance needs a value/);
  });

  it('names an unknown option or a stray argument', () => {
    refuses(['--sub', 'o', '--clearance', '7', '--clearence', '8'], /Unknown option --clearence/);
    refuses(['--sub', 'o', '--clearance', '7', '-x'], /Unknown option -x/);
    refuses(['--sub', 'o', '--clearance', '7', 'extra'], /Unexpected argument "extra"/);
  });
});
