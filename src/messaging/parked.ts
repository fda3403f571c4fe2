import { dispatchMessages, type DispatchContext } from './dispatch.js';
import { parkedFor } from './ports.js';
import { retryHold } from './sweep.js';

/** Parked messages taken over per connector and round at most. */
const ROUND = 1_000;

/**
 * Hands over the messages other processes left for the connectors bound in
 * this one (parked: a process without a bind of a message's connector never
 * fails it over, see carriers/router.ts). Each is claimed anew from its
 * parked token by one conditional update (dispatchMessages), so two
 * processes holding binds of the same connector never both take it.
 * Returns how many were handed over.
 */
export async function handOverParked(ctx: DispatchContext): Promise<number> {
  let handed = 0;
  for (const carrier of ctx.carriers.boundHere()) {
    const token = parkedFor(carrier);
    const rows = await ctx.db.kysely
      .selectFrom('messages')
      .select('id')
      // The unsent index's predicate (sweep.ts), then the token: the parked rows are few among few.
      .where('sent_at', 'is', null)
      .where('claimed_until', 'is not', null)
      .where('claim_token', '=', token)
      .where('stage', '=', 0)
      .orderBy('id')
      .limit(ROUND)
      .execute();
    if (rows.length === 0) continue;
    const outcomes = await dispatchMessages(
      ctx,
      rows.map((r) => r.id),
      undefined,
      // `until` 0: never a batch submitted on the parked claim itself, always claimed anew from it.
      { token, until: 0 },
      retryHold(ctx.config.DISPATCH_RETRY_MS, 1),
    );
    handed += outcomes.length;
  }
  if (handed > 0) ctx.worker.nudge('carrier', 'webhooks');
  return handed;
}

/**
 * Looks for parked messages every WORKER_POLL_MS while this process runs its
 * worker and holds a bind (no query otherwise); one round at a time.
 */
export function watchParked(ctx: DispatchContext): void {
  let round: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (round || !ctx.worker.running || ctx.carriers.boundHere().length === 0) return;
    round = handOverParked(ctx)
      .catch((err) => ctx.log.warn({ err }, 'handing over parked messages failed; retrying'))
      .finally(() => (round = null));
    ctx.worker.track(round);
  }, ctx.config.WORKER_POLL_MS);
  timer.unref();
}
