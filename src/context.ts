import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import type { Db } from './db/engine.js';
import type { DatabaseLiveness } from './db/liveness.js';
import type { Worker } from './jobs/worker.js';
import type { Secrets } from './lib/secrets.js';
import type { SendRateLimiter } from './http/rate-limit.js';

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
 * Everything a feature needs, built once per process by src/app/boot.ts and
 * passed down explicitly (no globals, no registries): routes and jobs take it.
 * This file names the foundation's services only; each module above adds its
 * own members by declaration merging (`declare module '…/context.js'`):
 * src/metrics/metrics.ts the metrics, src/messaging/ports.ts the carriers, the
 * group commit, the inline and shared dispatch and the prices, src/payment-providers/registry.ts the
 * payment provider.
 */
export interface AppContext extends BaseContext {
  worker: Worker;
  rateLimiter: SendRateLimiter;
  /** Whether the database answers, checked every second (/readyz, /metrics, warn lines). */
  liveness: DatabaseLiveness;
}

/** The narrow shapes most functions take: give a function only the members of the context it reads. */
export type WithDb = Pick<AppContext, 'db'>;
export type WithConfig = Pick<AppContext, 'config'>;
export type DbAndConfig = Pick<AppContext, 'config' | 'db'>;

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
