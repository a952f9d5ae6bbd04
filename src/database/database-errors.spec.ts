import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDatabaseUnavailable, isStorageFailure } from './database-errors';

const errorWith = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('recognises a refused, reset or timed-out connection', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']) {
      assert.equal(isDatabaseUnavailable(errorWith(code)), true, code);
    }
  });

  it('recognises PostgreSQL connection exceptions and shutdowns by SQLSTATE', () => {
    for (const code of ['08006', '08001', '57P01', '57P03', '53300']) {
      assert.equal(isDatabaseUnavailable(errorWith(code)), true, code);
    }
  });

  it('recognises a statement cancelled by statement_timeout and refused credentials', () => {
    for (const code of ['57014', '28P01', '28000']) {
      assert.equal(isDatabaseUnavailable(errorWith(code)), true, code);
    }
  });

  it("recognises the pg driver's own connection messages and a busy SQLite file", () => {
    assert.equal(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')), true);
    assert.equal(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect')), true);
    assert.equal(isDatabaseUnavailable(new Error('Connection terminated due to connection timeout')), true);
    assert.equal(isDatabaseUnavailable(new Error('Query read timeout')), true);
    assert.equal(isDatabaseUnavailable(new Error('Client has encountered a connection error and is not queryable')), true);
    assert.equal(isDatabaseUnavailable(errorWith('SQLITE_BUSY')), true);
    assert.equal(isDatabaseUnavailable(errorWith('SQLITE_BUSY_SNAPSHOT')), true);
  });

  it('looks inside an AggregateError, as a failed connect to every address of a host gives', () => {
    assert.equal(isDatabaseUnavailable(new AggregateError([errorWith('ECONNREFUSED'), errorWith('ECONNREFUSED')])), true);
  });

  it('treats query faults and non-errors as faults, not unavailability', () => {
    assert.equal(isDatabaseUnavailable(errorWith('42P01', 'relation "vessels" does not exist')), false);
    assert.equal(isDatabaseUnavailable(errorWith('SQLITE_ERROR', 'no such table: vessels')), false);
    assert.equal(isDatabaseUnavailable(new TypeError('x is undefined')), false);
    assert.equal(isDatabaseUnavailable('ECONNREFUSED'), false);
  });
});

describe('isStorageFailure', () => {
  it('recognises a full disk, a read-only database and I/O errors on both engines', () => {
    for (const code of ['SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_READONLY_DBMOVED', 'SQLITE_IOERR', 'SQLITE_IOERR_WRITE', '53100', '58030', '25006']) {
      assert.equal(isStorageFailure(errorWith(code)), true, code);
    }
  });

  it('leaves other failures alone', () => {
    for (const code of ['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_BUSY', '23505', '53300', 'ECONNREFUSED']) {
      assert.equal(isStorageFailure(errorWith(code)), false, code);
    }
    assert.equal(isStorageFailure(new Error('SQLITE_FULL')), false);
  });
});
