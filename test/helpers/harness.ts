import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { describe } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { startService, type RunningService } from '../../src/app/serve.js';
import { insertAccount } from '../../src/accounts/store.js';
import { toUnits } from '../../src/accounts/credits.js';
import type { BuildOptions } from '../../src/app/server.js';
import { clonePgTemplate, copySqliteTemplate } from './template-db.js';

export type EngineName = 'sqlite' | 'postgres';

/** SQLite always; PostgreSQL when TEST_DATABASE_URL is set (CI sets it). */
export const engines: EngineName[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface Reply {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

export interface TestAccount {
  id: number;
  email: string;
  apikey: string;
}

export interface Harness extends RunningService {
  engine: EngineName;
  config: Config;
  /** JSON POST (or any method) through fastify.inject with the apikey header when given. */
  request(
    method: string,
    url: string,
    opts?: { apikey?: string; body?: unknown; headers?: Record<string, string>; form?: Record<string, string> },
  ): Promise<Reply>;
  post(url: string, body: unknown, apikey?: string): Promise<Reply>;
  get(url: string, apikey?: string): Promise<Reply>;
  createAccount(credits?: number, email?: string): Promise<TestAccount>;
  close(): Promise<void>;
}

export interface HarnessOptions extends BuildOptions {
  env?: Record<string, string>;
  /** Start the job worker (default true). */
  worker?: boolean;
  /** Listen on a random port (for tests that need real HTTP). */
  listen?: boolean;
  /** Options of the SMPP listener (started when the env sets SMPP_SERVER_PORT). */
  smpp?: import('../../src/smpp-server/listener.js').SmppServerOptions;
  /** PostgreSQL: the schema to use (one that already holds data); a new one by default. Dropped by close(). */
  pgSchema?: string;
}

/** The configuration of a test service: its database in `dir` (SQLite) or TEST_DATABASE_URL, fast polling, silent logs. */
export function testConfig(engine: EngineName, dir: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    DATABASE_URL: engine === 'postgres' ? process.env.TEST_DATABASE_URL! : `sqlite:${join(dir, 'test.db')}`,
    DATA_DIR: dir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    WORKER_POLL_MS: '20',
    SIMULATOR_DLR_DELAY_MS: '20',
    // The destination caps (20 an hour to one number by default) are off in tests that send a number many messages;
    // the tests of the caps set them.
    DESTINATION_MAX_PER_NUMBER_HOUR: '0',
    DESTINATION_MAX_SAME_TEXT_HOUR: '0',
    ...env,
  } as NodeJS.ProcessEnv);
}

/** Drops a test's PostgreSQL schema. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}

/** A service on a fresh database of the given engine: its own SQLite file, or its own PostgreSQL schema. */
export async function startHarness(engine: EngineName, opts: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-test-'));
  const pgSchema = engine === 'postgres' ? (opts.pgSchema ?? `t_${randomBytes(6).toString('hex')}`) : undefined;
  const config = testConfig(engine, dir, opts.env);
  // A copy of this process's migrated database (template-db.ts), not a run of every migration.
  // Not when the test names its own database or a schema that already holds data.
  const sqliteFile = join(dir, 'test.db');
  if (engine === 'sqlite' && config.DATABASE_URL === `sqlite:${sqliteFile}`) await copySqliteTemplate(sqliteFile);
  if (pgSchema && !opts.pgSchema && config.DATABASE_URL === process.env.TEST_DATABASE_URL)
    await clonePgTemplate(pgSchema);
  const service = await startService(config, {
    pgSchema,
    log: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    listen: opts.listen ?? false,
    worker: opts.worker ?? true,
    extraApiRoutes: opts.extraApiRoutes,
    smpp: opts.smpp,
  });
  if (opts.listen) {
    const address = service.app.server.address();
    if (address && typeof address === 'object') config.publicBaseUrl = `http://127.0.0.1:${address.port}`;
  }
  let counter = 0;

  const request: Harness['request'] = async (method, url, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.apikey) headers.apikey = o.apikey;
    if (o.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const payload = o.form ? new URLSearchParams(o.form).toString() : (o.body as any);
    const res = await service.app.inject({
      method: method as any,
      url,
      headers,
      ...(payload !== undefined ? { payload } : {}),
    });
    let body: any = res.body;
    try {
      body = JSON.parse(res.body);
    } catch {
      /* not JSON */
    }
    return { status: res.statusCode, body, headers: res.headers as Reply['headers'] };
  };

  return {
    ...service,
    engine,
    config,
    request,
    post: (url, body, apikey) => request('POST', url, { body: body ?? {}, apikey }),
    get: (url, apikey) => request('GET', url, { apikey }),
    async createAccount(credits = 0, email) {
      const address = email ?? `user${++counter}-${randomBytes(3).toString('hex')}@example.com`;
      const { account, apikey } = await insertAccount(service.ctx.db.kysely, service.ctx.secrets.keyEncryption, {
        email: address,
        passwordHash: 'scrypt$unused',
        credits: toUnits(credits),
      });
      return { id: account.id, email: account.email, apikey };
    },
    async close() {
      await service.stop();
      if (pgSchema) await dropSchema(pgSchema);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs the same suite on every engine. `setup` returns a getter for the
 * harness started once per engine (beforeAll) and closed afterwards.
 */
export function describeEngines(title: string, body: (engine: EngineName) => void): void {
  for (const engine of engines) describe(`${title} [${engine}]`, () => body(engine));
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 5000,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * A second process of the harness's deployment (its own worker, group commit and carriers) on the same database: the
 * same SQLite file, or the same PostgreSQL schema. Not listening; the caller stops it.
 */
export async function secondProcess(h: Harness): Promise<RunningService> {
  const pgSchema =
    h.engine === 'postgres'
      ? (await sql<{ search_path: string }>`show search_path`.execute(h.ctx.db.kysely)).rows[0].search_path
      : undefined;
  return startService(h.config, { pgSchema, listen: false, log: pino({ level: 'silent' }) });
}
