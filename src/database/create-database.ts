import { Kysely } from 'kysely';
import type { DatabaseLocation } from '../config';
import type { DB } from './database.types';
import { createPostgres } from './postgres';
import { createSqlite } from './sqlite';

export interface DatabaseOptions {
  /**
   * A span for each statement when traces are on. SQLite's come from TracedSqliteDatabase; PostgreSQL's
   * from the SDK's pg instrumentation, whatever this says.
   */
  traced: boolean;
}

export function createDatabase(location: DatabaseLocation, options: DatabaseOptions = { traced: false }): Kysely<DB> {
  return location.dialect === 'postgres' ? createPostgres(location) : createSqlite(location, options);
}

/** Where the data lives, for messages: the file, or the PostgreSQL URL without its password. */
export function describeLocation(location: DatabaseLocation): string {
  if (location.dialect === 'sqlite') {
    return location.path;
  }
  const url = new URL(location.url);
  url.password = url.password ? '***' : '';
  return url.toString();
}
