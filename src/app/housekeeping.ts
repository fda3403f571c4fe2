import type { Feature } from '../feature.js';
import type { AppContext } from '../context.js';
import type { Executor } from '../db/engine.js';
import { pruneAttemptCounters } from '../auth/attempts.js';
import { pruneRejections } from '../carriers/providers/store.js';
import { pruneFailedAttempts } from '../messaging/attempts.js';
import { enqueue } from '../jobs/queue.js';

export const HOUSEKEEPING_JOB = 'housekeeping';
export const HOUSEKEEPING_EVERY_MS = 10 * 60_000;

/**
 * Queues the run of the period that holds `at`. The period's unique key makes
 * every process that queues it (each at start, each run the next) queue it
 * once, so one process runs it; a process started later in a period whose run
 * is over runs it again, which only deletes nothing.
 */
export function scheduleHousekeeping(db: Executor, at: number): Promise<void> {
  const period = Math.floor(at / HOUSEKEEPING_EVERY_MS);
  return enqueue(db, HOUSEKEEPING_JOB, null, { runAt: at, uniqueKey: `${HOUSEKEEPING_JOB}:${period}` });
}

/** Rows written by anyone who knocks (throttle counters, refused webhooks) and failed hand-offs, removed once of no use. */
async function keepHouse(ctx: AppContext): Promise<void> {
  const now = Date.now();
  // The next run is queued first: a failing prune retries without ending the schedule.
  await scheduleHousekeeping(ctx.db.kysely, now + HOUSEKEEPING_EVERY_MS);
  const counters = await pruneAttemptCounters(ctx.db.kysely, now);
  const rejections = await pruneRejections(ctx, now);
  const attempts = await pruneFailedAttempts(ctx, now);
  if (counters + rejections + attempts > 0)
    ctx.log.info({ counters, rejections, attempts }, 'housekeeping pruned old rows');
}

/** Every HOUSEKEEPING_EVERY_MS, in one process of the ones sharing the database. */
export const housekeeping: Feature = {
  name: 'housekeeping',
  jobs(worker, ctx) {
    worker.register('housekeeping', { kind: HOUSEKEEPING_JOB, handler: () => keepHouse(ctx) });
    const first = scheduleHousekeeping(ctx.db.kysely, Date.now());
    worker.track(first.catch((err) => ctx.log.warn({ err }, 'scheduling housekeeping failed')));
  },
};
