import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import { openDatabase, type Db } from './db/engine.js';
import { migrateToLatest } from './db/migrate.js';
import type { Worker } from './jobs/worker.js';
import { loadServerSecret, Secrets } from './lib/secrets.js';
import type { SendRateLimiter } from './http/rate-limit.js';
import type { Metrics } from './metrics/metrics.js';
import type { CarrierRegistry } from './carriers/registry.js';

/**
 * What a CLI command needs: configuration, the database, the server secret
 * and a logger. Built without the worker, carriers and metrics, whose modules
 * cost a command most of its start-up time.
 */
export interface BaseContext {
  config: Config;
  db: Db;
  secrets: Secrets;
  log: Logger;
}

/**
 * Everything a feature needs, built once per process and passed down
 * explicitly (no globals): routes and jobs take it.
 */
export interface AppContext extends BaseContext {
  worker: Worker;
  rateLimiter: SendRateLimiter;
  metrics: Metrics;
  carriers: CarrierRegistry;
}

export const logRedactPaths = [
  'req.headers.apikey',
  'req.headers.token',
  'req.headers.authorization',
  '*.password',
  '*.apikey',
  // OTP codes where they can appear: a logged request body. Not '*.code', which
  // hid unrelated fields such as a database error's code (err.code '22021').
  'body.code',
  '*.body.code',
  'req.body.code',
];

export function createLogger(level: Config['LOG_LEVEL']): Logger {
  return pino({ level, redact: { paths: logRedactPaths, censor: '[redacted]' } });
}

export interface ContextOptions {
  log?: Logger;
  pgSchema?: string;
  migrate?: boolean;
}

/** The context of a CLI command: the database (migrated unless told not to), the secret and a logger. */
export async function createBaseContext(config: Config, opts: ContextOptions = {}): Promise<BaseContext> {
  const log = opts.log ?? createLogger(config.LOG_LEVEL);
  const db = await openDatabase(config.DATABASE_URL, { pgSchema: opts.pgSchema });
  try {
    if (opts.migrate !== false) await migrateToLatest(db);
    const secrets = new Secrets(loadServerSecret(config.MENSAJERO_SECRET, config.DATA_DIR));
    return { config, db, secrets, log };
  } catch (err) {
    await db.close();
    throw err;
  }
}

/** The context of `serve`: the base one plus the worker, rate limiter, metrics and carriers, loaded only here. */
export async function createContext(config: Config, opts: ContextOptions = {}): Promise<AppContext> {
  const [{ Worker }, { SendRateLimiter }, { Metrics }, { CarrierRegistry, loadCarrierModule }] = await Promise.all([
    import('./jobs/worker.js'),
    import('./http/rate-limit.js'),
    import('./metrics/metrics.js'),
    import('./carriers/registry.js'),
  ]);
  const { db, secrets, log } = await createBaseContext(config, opts);
  const worker = new Worker(db, { concurrency: config.WORKER_CONCURRENCY, pollMs: config.WORKER_POLL_MS, leaseMs: config.JOB_LEASE_MS }, log);
  const rateLimiter = new SendRateLimiter(config);
  await rateLimiter.connect((err) => log.warn({ err: err.message }, 'Redis is unreachable: rate limits count per process until it answers'));
  const metrics = new Metrics(db);
  const ctx = { config, db, secrets, worker, log, rateLimiter, metrics } as AppContext;
  ctx.carriers = new CarrierRegistry(ctx);
  if (config.CARRIER_MODULE) await loadCarrierModule(ctx, config.CARRIER_MODULE);
  return ctx;
}

export async function closeBaseContext(ctx: BaseContext): Promise<void> {
  await ctx.db.close();
}

export async function closeContext(ctx: AppContext): Promise<void> {
  await ctx.worker.stop();
  await ctx.carriers.close();
  await ctx.rateLimiter.close();
  await ctx.db.close();
}
