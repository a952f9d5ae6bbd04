import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeFailure } from './run-command';

const systemError = (code: string, fields: Record<string, unknown> = {}) => Object.assign(new Error(`${code}: raw text`), { code, ...fields });

describe('describeFailure', () => {
  it('says what to do about a file, naming it, without the system error code', () => {
    const line = describeFailure(systemError('ENOENT', { path: 'fleet.json', syscall: 'open' }));
    assert.match(line, /^fleet\.json: no such file or folder\. Check the path \(a relative one starts from .+\)$/);
    assert.match(describeFailure(systemError('EACCES', { path: '/srv/out.json' })), /^\/srv\/out\.json: permission denied\. Check the permissions/);
  });

  it('names the database and why it cannot be reached, an AggregateError (several addresses) included', () => {
    const refused = new AggregateError([systemError('ECONNREFUSED'), systemError('ECONNREFUSED')], 'connect failed');
    assert.match(describeFailure(refused), /^Cannot reach the database at .+: the connection was refused\. Check DATABASE_URL/);
    assert.match(describeFailure(systemError('28P01')), /: it refused the user name or password\./);
    assert.match(describeFailure(new Error('timeout exceeded when trying to connect')), /: it did not answer in time\./);
  });

  it('says a query ran past the statement timeout, not that the database cannot be reached', () => {
    const line = describeFailure(systemError('57014', { message: 'canceling statement due to statement timeout' }));
    assert.match(line, /^The database at .+ cancelled a query that ran longer than DATABASE_STATEMENT_TIMEOUT_MS allows.*\. Run the command again with a longer one, e\.g\. DATABASE_STATEMENT_TIMEOUT_MS=60000$/);
  });

  it('keeps any other message as it is', () => {
    assert.equal(describeFailure(new RangeError('ttl must be a number followed by s, m, h or d, e.g. 1h')), 'ttl must be a number followed by s, m, h or d, e.g. 1h');
    assert.equal(describeFailure('plain'), 'plain');
  });
});
