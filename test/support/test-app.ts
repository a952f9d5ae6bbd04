import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { Kysely } from 'kysely';
import request from 'supertest';
import { AppModule } from '../../src/app.module';
import { configureApp, createHttpAdapter } from '../../src/bootstrap';
import { TokenService } from '../../src/auth/token.service';
import { type AppConfig, loadAppConfig } from '../../src/config';
import type { DB } from '../../src/database';
import { RecordImportService } from '../../src/import/record-import.service';
import { createTestDatabase, type TestDatabase, type TestEngine } from './databases';
import { FIXTURE_RECORDS } from './fixtures';
import { type RunningServer, startServer } from './processes';

export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';

export interface TestApp {
  engine: TestEngine;
  app: NestExpressApplication;
  config: AppConfig;
  db: Kysely<DB>;
  /** A supertest agent bound to the running app. */
  http: () => ReturnType<typeof request>;
  /** `Bearer <jwt>` for an officer, signed the way the token command signs. */
  bearer: (officerId: string, clearance: number, ttl?: string) => string;
  close: () => Promise<void>;
}

/** Starts the app's HTTP server on 127.0.0.1, once, for clients that need a URL (fetch, streams); returns its base URL. */
export async function listenOnLoopback(t: TestApp): Promise<string> {
  const server = t.app.getHttpServer();
  if (!server.listening) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  }
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface TestAppOptions {
  /** SQLite by default; PostgreSQL needs TEST_DATABASE_URL. */
  engine?: TestEngine;
  /** A database the caller made (reached through a relay, say) instead of a fresh one; dropped on close. */
  database?: TestDatabase;
  /** Environment variables on top of the test defaults (a fresh database, fixed secret, no demo seed). */
  env?: Record<string, string>;
  /** Records loaded through the import service before the test runs; FIXTURE_RECORDS by default. */
  records?: unknown;
}

/** The real AppModule on a fresh database of its own, wired exactly as main.ts wires it. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const engine = options.engine ?? 'sqlite';
  const dir = mkdtempSync(join(tmpdir(), 'fleet-registry-test-'));
  const database = options.database ?? (await createTestDatabase(engine, dir));
  const config = loadAppConfig(
    {
      DATABASE_URL: database.url,
      JWT_SECRET: TEST_JWT_SECRET,
      SEED_DEMO: 'false',
      // Suites send many refused requests from one address; test/rate-limit.e2e-spec.ts turns limits on.
      RATE_LIMIT_ENABLED: 'false',
      ...options.env,
    },
    dir,
  );
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(config)] }).compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(createHttpAdapter(), { bodyParser: false, logger: false });
  configureApp(app);
  await app.init();
  const records = options.records ?? FIXTURE_RECORDS;
  if (records) {
    await app.get(RecordImportService).import(records);
  }
  const tokens = app.get(TokenService);
  return {
    engine,
    app,
    config,
    db: app.get<Kysely<DB>>(Kysely),
    http: () => request(app.getHttpServer()),
    bearer: (officerId, clearance, ttl = '1h') => `Bearer ${tokens.issue(officerId, clearance, ttl)}`,
    close: async () => {
      await app.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A second instance beside the test app, as a real process: its database (already migrated), its token
 * secret, and its working directory, so the same generated audit signing key. `env` adds to that.
 */
export function startInstanceBeside(t: TestApp, env: Record<string, string> = {}): Promise<RunningServer> {
  return startServer({
    cwd: dirname(t.config.dataDir),
    env: {
      DATABASE_URL: t.config.database.dialect === 'postgres' ? t.config.database.url : '',
      JWT_SECRET: TEST_JWT_SECRET,
      SEED_DEMO: 'false',
      MIGRATE_ON_START: 'false',
      RATE_LIMIT_ENABLED: 'false',
      ...env,
    },
  });
}
