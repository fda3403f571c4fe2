import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createLogger, type AppContext, type BaseContext } from '../context.js';
import { openDatabase, type PgLimits } from '../db/engine.js';
import { DatabaseLiveness } from '../db/liveness.js';
import { migrateToLatest } from '../db/migrate.js';
import { secretFor } from '../db/sealed.js';
import { Secrets } from '../lib/secrets.js';

/**
 * The composition root: the one place that builds the services of a process
 * and wires each to what it uses. A CLI command gets the base context; `serve`
 * (and every test service) the whole one.
 */

export interface ContextOptions {
  log?: Logger;
  pgSchema?: string;
  migrate?: boolean;
}

/** The PostgreSQL session and connection limits the configuration sets. */
export function pgLimits(config: Config): PgLimits {
  return {
    statementMs: config.PG_STATEMENT_TIMEOUT_MS,
    lockMs: config.PG_LOCK_TIMEOUT_MS,
    idleInTransactionMs: config.PG_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    connectMs: config.PG_CONNECT_TIMEOUT_MS,
    keepAliveMs: config.PG_KEEPALIVE_MS,
  };
}

/** The context of a CLI command: the database (migrated unless told not to), the secret that opens it and a logger. */
export async function createBaseContext(config: Config, opts: ContextOptions = {}): Promise<BaseContext> {
  const log = opts.log ?? createLogger(config.LOG_LEVEL);
  const db = await openDatabase(config.DATABASE_URL, {
    pgSchema: opts.pgSchema,
    limits: pgLimits(config),
    preparedStatements: config.PG_PREPARED_STATEMENTS,
  });
  try {
    if (opts.migrate !== false) await migrateToLatest(db);
    // Refuses a secret that does not open what the database holds sealed (a restore without its secret).
    const secrets = new Secrets(await secretFor(db, config.MENSAJERO_SECRET, config.DATA_DIR));
    return { config, db, secrets, log };
  } catch (err) {
    await db.close();
    throw err;
  }
}

/**
 * The context of `serve`: the base one plus the worker, rate limiter, metrics,
 * carriers, group commit, hand-off, payment provider, and the pools of
 * outbound webhooks and alerts. Their modules are
 * loaded only here: they cost a CLI command most of its start-up time.
 */
export async function createContext(config: Config, opts: ContextOptions = {}): Promise<AppContext> {
  const [
    { Worker },
    { SendRateLimiter },
    { Metrics },
    { CarrierRegistry, loadCarrierModule },
    { GroupCommit },
    { InlineDispatch, SharedDispatch },
    { configuredPaymentProvider },
    { PriceBook },
    { SendRulesBook },
    { carrierInbox },
    { DestinationPools },
    { SmtpTransports },
    { endpointAlarm },
  ] = await Promise.all([
    import('../jobs/worker.js'),
    import('../http/rate-limit.js'),
    import('../metrics/metrics.js'),
    import('../carriers/registry.js'),
    import('../messaging/group-commit.js'),
    import('../messaging/inline-dispatch.js'),
    import('../payment-providers/configured.js'),
    import('../messaging/prices.js'),
    import('../messaging/send-rules.js'),
    import('../messaging/carrier-sink.js'),
    import('../outbound/http.js'),
    import('../alerts/mail.js'),
    import('../alerts/episodes.js'),
  ]);
  const base = await createBaseContext(config, opts);
  const { db, log } = base;
  const worker = new Worker(
    db,
    { concurrency: config.WORKER_CONCURRENCY, pollMs: config.WORKER_POLL_MS, leaseMs: config.JOB_LEASE_MS },
    log,
  );
  const rateLimiter = new SendRateLimiter(config);
  await rateLimiter.connect((err) =>
    log.warn({ err: err.message }, 'Redis is unreachable: rate limits count per process until it answers'),
  );
  const liveness = new DatabaseLiveness(db, log);
  liveness.start();
  const metrics = new Metrics(db, liveness);
  const paymentProvider = await configuredPaymentProvider(base);
  const ctx = {
    ...base,
    worker,
    rateLimiter,
    metrics,
    liveness,
    groupCommit: new GroupCommit(db),
    paymentProvider,
    outbound: new DestinationPools(),
    alertMail: new SmtpTransports(),
    endpointAlarm: endpointAlarm(config),
  } as AppContext;
  ctx.prices = new PriceBook(config.CARRIER_POLL_MS);
  ctx.sendRules = new SendRulesBook(config.CARRIER_POLL_MS, config);
  ctx.inlineDispatch = new InlineDispatch(ctx);
  ctx.sharedDispatch = new SharedDispatch(ctx);
  ctx.carriers = new CarrierRegistry(ctx, carrierInbox(ctx));
  if (config.CARRIER_MODULE) await loadCarrierModule(ctx, config.CARRIER_MODULE);
  return ctx;
}

export async function closeBaseContext(ctx: BaseContext): Promise<void> {
  await ctx.db.close();
}

export async function closeContext(
  ctx: Pick<AppContext, 'db' | 'worker' | 'rateLimiter' | 'carriers' | 'liveness' | 'outbound' | 'alertMail'>,
): Promise<void> {
  ctx.liveness.stop();
  // Messages waiting in the carriers' lines go back to other processes: stopping waits only for what is written.
  ctx.carriers.refuseWaiting();
  await ctx.worker.stop();
  await ctx.carriers.close();
  await ctx.outbound.close();
  ctx.alertMail.close();
  await ctx.rateLimiter.close();
  await ctx.db.close();
}
