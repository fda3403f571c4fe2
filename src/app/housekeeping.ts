import type { Feature } from '../feature.js';
import type { AppContext } from '../context.js';
import type { Executor } from '../db/engine.js';
import { pruneAttemptCounters } from '../auth/attempts.js';
import { enqueue } from '../jobs/queue.js';
import { pruneOldMessages } from '../messaging/retention.js';
import { pruneAuditLog } from '../audit/store.js';

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

/**
 * Rows written by anyone who knocks (throttle counters, refused webhooks) and failed hand-offs, removed once of no
 * use: the foundation's throttle counters (auth has no Feature), then what each feature's `prune` deletes, then
 * what retention removes: old final messages (batched, src/messaging/retention.ts) and old audit entries.
 */
async function keepHouse(ctx: AppContext, features: readonly Feature[]): Promise<void> {
  const now = Date.now();
  // The next run is queued first: a failing prune retries without ending the schedule.
  await scheduleHousekeeping(ctx.db.kysely, now + HOUSEKEEPING_EVERY_MS);
  const pruned: Record<string, number> = { counters: await pruneAttemptCounters(ctx.db.kysely, now) };
  for (const feature of features) if (feature.prune) Object.assign(pruned, await feature.prune(ctx, now));
  // Retention (MESSAGES_KEEP_DAYS, AUDIT_KEEP_DAYS; off when 0): each module deletes its rows of the pruned messages.
  const forget = features.flatMap((f) => (f.forgetMessages ? [f.forgetMessages] : []));
  Object.assign(pruned, await pruneOldMessages(ctx, now, forget));
  pruned.audit = await pruneAuditLog(ctx, now);
  if (Object.values(pruned).some((rows) => rows > 0)) ctx.log.info(pruned, 'housekeeping pruned old rows');
}

/**
 * Every HOUSEKEEPING_EVERY_MS, in one process of the ones sharing the database. `features` is read when a run
 * starts: src/app/features.ts hands its own list, this feature among them.
 */
export function housekeeping(features: () => readonly Feature[]): Feature {
  return {
    name: 'housekeeping',
    jobs(worker, ctx) {
      worker.register('housekeeping', { kind: HOUSEKEEPING_JOB, handler: () => keepHouse(ctx, features()) });
      const first = scheduleHousekeeping(ctx.db.kysely, Date.now());
      worker.track(first.catch((err) => ctx.log.warn({ err }, 'scheduling housekeeping failed')));
    },
  };
}
