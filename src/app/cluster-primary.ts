import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { openDatabase } from '../db/engine.js';
import { migrateToLatest } from '../db/migrate.js';
import { secretFor } from '../db/sealed.js';

/** A worker that dies within this long of its start counts as a crash for the back-off. */
const STABLE_MS = 30_000;
const FIRST_RESTART_MS = 250;
const MAX_RESTART_MS = 15_000;
/** Replacements that die before listening, in a row, before the primary gives up. */
const MAX_FAILED_STARTS = 5;

/**
 * `mensajero serve --workers N`: this process migrates the database once, checks the secret,
 * then runs N copies of the service (node:cluster) that share the port; the
 * background work is shared through the database (job claims, message claims,
 * carrier bind leases). A worker that dies is replaced after a back-off that
 * doubles while replacements keep dying young. SIGTERM/SIGINT are passed on
 * for a graceful stop of all. Resolves never: the primary exits itself, non-zero
 * when the workers cannot start.
 */
export async function runPrimary(config: Config, workers: number, log: Logger): Promise<void> {
  const db = await openDatabase(config.DATABASE_URL);
  const database = db.describe;
  try {
    await migrateToLatest(db);
    // Refused here once, with its reason, rather than by every worker; a fresh install's secret is made before they start.
    await secretFor(db, config.MENSAJERO_SECRET, config.DATA_DIR);
  } finally {
    await db.close();
  }
  warnAboutPerProcessLimits(config, log);

  const startedAt = new Map<Worker, number>();
  const listening = new Set<Worker>();
  const restarts = new Set<NodeJS.Timeout>();
  let allUp = false;
  let crashes = 0;
  let failedStarts = 0;
  let stopping = false;
  let exitCode = 0;

  const fork = () => {
    const worker = cluster.fork();
    startedAt.set(worker, Date.now());
    worker.once('listening', (address) => {
      listening.add(worker);
      failedStarts = 0;
      log.info({ worker_pid: worker.process.pid }, 'worker started');
      if (!allUp && listening.size === workers) {
        allUp = true;
        log.info({ port: address.port, workers, database }, 'mensajero is serving');
      }
    });
  };

  const stopAll = (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    for (const timer of restarts) clearTimeout(timer);
    restarts.clear();
    log[code === 0 ? 'info' : 'error'](
      { reason, workers: Object.keys(cluster.workers ?? {}).length },
      'stopping the workers: finishing in-flight requests and jobs',
    );
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    exitWhenAllGone();
  };

  const exitWhenAllGone = () => {
    if (stopping && Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
  };

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    const started = listening.delete(worker);
    startedAt.delete(worker);
    if (stopping) {
      if (code !== 0 && code !== null) exitCode ||= 1;
      return exitWhenAllGone();
    }
    log.error({ worker_pid: worker.process.pid, code, signal, lived_ms: lived }, 'worker died');
    if (!allUp) return stopAll('a worker could not start', 1);
    if (!started && ++failedStarts >= MAX_FAILED_STARTS)
      return stopAll(`${MAX_FAILED_STARTS} replacement workers in a row could not start`, 1);
    crashes = lived < STABLE_MS ? crashes + 1 : 0;
    const delay = crashes === 0 ? 0 : Math.min(MAX_RESTART_MS, FIRST_RESTART_MS * 2 ** (crashes - 1));
    log.info({ in_ms: delay }, 'replacing the worker');
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (!stopping) fork();
    }, delay);
    restarts.add(timer);
  });

  process.once('SIGTERM', () => stopAll('SIGTERM', 0));
  process.once('SIGINT', () => stopAll('SIGINT', 0));
  for (let i = 0; i < workers; i++) fork();
}

/** Limits counted in each process's memory multiply by the number of workers. */
function warnAboutPerProcessLimits(config: Config, log: Logger): void {
  if (config.RATE_LIMIT_STORE === 'memory') {
    log.warn(
      'RATE_LIMIT_STORE=memory counts send rate limits per worker: with several workers set RATE_LIMIT_STORE=redis so they share one count',
    );
  }
}
