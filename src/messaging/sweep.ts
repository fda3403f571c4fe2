import { sql } from 'kysely';
import type { Executor } from '../db/engine.js';
import { enqueue } from '../jobs/queue.js';
import { countMessages, pipelineMetrics } from './metrics.js';
import { closeUnsent } from './close-unsent.js';
import { dispatchMessages, GAVE_UP_STATUS, type DispatchContext } from './dispatch.js';

export const SWEEP_JOB = 'messaging.unsent-sweep';

/** Messages a sweep round hands over at most; the rest wait for the next round. */
export const SWEEP_ROUND = 1_000;

/** Failed hand-off attempts (message_attempts) after which a message is closed with status 8, as the dispatch job gives up. */
export const SWEEP_MAX_ATTEMPTS = 20;

/** The back-off after a message's n-th failed attempt: DISPATCH_RETRY_MS doubling, at most 10 minutes. */
export const retryHold = (retryMs: number, failures: number) =>
  Math.min(retryMs * 2 ** Math.max(failures - 1, 0), 600_000);

/**
 * Queues the round of the period that holds `at` (a period is DISPATCH_RETRY_MS):
 * its unique key makes every process queue it once, so one process runs it.
 */
export function scheduleSweep(db: Executor, at: number, everyMs: number): Promise<void> {
  const period = Math.floor(at / everyMs);
  return enqueue(db, SWEEP_JOB, null, { runAt: at, uniqueKey: `${SWEEP_JOB}:${period}` });
}

/**
 * The safety net of the inline dispatch: small sends are inserted already
 * claimed and queue no dispatch job, so a message still at stage 0 whose
 * claim ran out was left by a process that died before handing it over (or
 * while it was in flight), or is waiting for a retry after a transient carrier
 * failure (the release holds it for its back-off, retryHold). The sweep hands
 * such messages over through dispatchMessages (claims, pacing, validity),
 * oldest claim first, at most SWEEP_ROUND per round, and closes with status 8
 * and a refund those that failed SWEEP_MAX_ATTEMPTS times. Returns how many it took.
 */
export async function sweepUnsent(ctx: DispatchContext, signal?: AbortSignal): Promise<number> {
  const now = Date.now();
  const rows = await ctx.db.kysely
    .selectFrom('messages')
    .select([
      'id',
      sql<number>`(SELECT count(*) FROM message_attempts WHERE message_attempts.message_id = messages.id)`.as(
        'failures',
      ),
    ])
    // The partial index's predicate, then the stage: a message is swept only while never handed over.
    .where('sent_at', 'is', null)
    .where('claimed_until', 'is not', null)
    .where('stage', '=', 0)
    .where('claimed_until', '<', now)
    .orderBy('claimed_until')
    .limit(SWEEP_ROUND)
    .execute();
  if (rows.length === 0) return 0;
  const exhausted = rows
    .filter((r) => Number(r.failures) >= SWEEP_MAX_ATTEMPTS && !ctx.carriers.inFlight.has(r.id))
    .map((r) => r.id);
  if (exhausted.length > 0) {
    const closed = await ctx.db.kysely
      .transaction()
      .execute((trx) => closeUnsent(trx, exhausted, GAVE_UP_STATUS, 'not dispatched: every retry failed', null, now));
    countMessages(pipelineMetrics(ctx.metrics.registry), closed, 'undelivered');
    ctx.worker.nudge('webhooks');
  }
  const byFailures = new Map<number, number[]>();
  for (const r of rows) {
    const n = Number(r.failures);
    if (n >= SWEEP_MAX_ATTEMPTS) continue;
    byFailures.set(n, [...(byFailures.get(n) ?? []), r.id]);
  }
  for (const [failures, ids] of byFailures) {
    const hold = retryHold(ctx.config.DISPATCH_RETRY_MS, failures + 1);
    const outcomes = await dispatchMessages(ctx, ids, signal, undefined, hold);
    if (outcomes.length > 0) ctx.worker.nudge('carrier', 'webhooks');
  }
  return rows.length;
}

/**
 * One round of the sweep job. The next period's round is queued first (a
 * failing round does not end the schedule), and this one stops handing over
 * when that period begins, so rounds never overlap.
 */
export async function sweepRound(ctx: DispatchContext, signal: AbortSignal): Promise<void> {
  const every = ctx.config.DISPATCH_RETRY_MS;
  const now = Date.now();
  const next = (Math.floor(now / every) + 1) * every;
  await scheduleSweep(ctx.db.kysely, next, every);
  const period = AbortSignal.timeout(Math.max(next - now, 1));
  try {
    await sweepUnsent(ctx, AbortSignal.any([signal, period]));
  } catch (err) {
    // What the period's end left is the next round's.
    if (!period.aborted || signal.aborted) throw err;
  }
}
