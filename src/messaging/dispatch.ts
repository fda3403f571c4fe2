import { randomUUID } from 'node:crypto';
import type { SelectQueryBuilder } from 'kysely';
import type { AppContext, DbAndConfig } from '../context.js';
import type { Database } from '../db/schema.js';
import { FENCED_ERROR, isParked, type CarrierDriver, type OutboundMessage, type SubmitOutcome } from './ports.js';
import { RetryLater } from '../jobs/worker.js';
import { recordDurably } from './outcomes.js';
import { countMessages, countOutcomes, pipelineMetrics } from './metrics.js';
import type { DispatchOutcome } from './ports.js';
import { OPTOUT_STATUS, optedOutMessages } from './optouts.js';
import { closeExpired, closeUnsent, EXPIRED_ERROR, REFUSED_STATUS } from './close-unsent.js';
import type { Channel, InlineClaim } from './types.js';
import { recordAcceptedUnrecorded } from './accepted-unrecorded.js';
import { Fence } from '../lib/fence.js';

/** What a dispatch reads of the process: the carriers, the database and the worker that runs its jobs. */
export type DispatchContext = Pick<
  AppContext,
  'config' | 'db' | 'log' | 'worker' | 'carriers' | 'metrics' | 'sendRules'
>;

export const DISPATCH_JOB = 'messaging.dispatch';

/** The unique key of an inline-dispatched campaign's dispatch job (OTP sends), by which a dispatch finds it. */
export const safetyNetKey = (campaignId: number) => `dispatch:${campaignId}`;

export { REFUSED_STATUS };
export { RECORD_RETRY_FOR_MS } from './outcomes.js';

export type { DispatchOutcome };

/** Delivery status code recorded for a message no carrier took after every retry: 8, error. */
export const GAVE_UP_STATUS = 8;

export interface DispatchAttempt {
  /** 1 for the first run of the job. */
  attempt: number;
  /** True on the job's last attempt: messages still not taken are then closed. */
  last: boolean;
}

/**
 * Hands a campaign's accepted messages to their carrier. Only messages still
 * at stage 0 are sent, and each is moved to stage 1 (or, refused, to stage 2
 * with its price refunded) by a conditional update. A run that stops halfway
 * (crash, lost lease) leaves the rest at stage 0 for the next run; what a crash
 * can hand over twice is described at dispatchMessages.
 * Transient carrier errors retry with exponential backoff from
 * DISPATCH_RETRY_MS (capped at 10 minutes); after the last attempt the
 * messages left are closed with status 8 (error) and refunded.
 */
export async function dispatchCampaign(
  ctx: DispatchContext,
  campaignId: number,
  attempt: DispatchAttempt = { attempt: 1, last: false },
  signal?: AbortSignal,
  release?: () => void,
): Promise<void> {
  const pending = () =>
    ctx.db.kysely
      .selectFrom('messages')
      .select(['id', 'valid_until'])
      .where('campaign_id', '=', campaignId)
      .where('stage', '=', 0)
      .orderBy('id')
      .execute();
  const rows = await pending();
  if (rows.length === 0) return;
  // From here the run waits for its turns in the carriers' lines: another campaign's job may start meanwhile.
  release?.();
  const outcomes = await dispatchMessages(
    ctx,
    rows.map((r) => r.id),
    signal,
  );
  // A message left to the process bound to its connector (parked) is that process's, as one claimed elsewhere.
  const transient = outcomes.filter((o) => !o.outcome.ok && !o.outcome.permanent && !o.outcome.elsewhere);
  const error =
    transient.length > 0 && !transient[0].outcome.ok ? transient[0].outcome.error : 'claimed by another dispatcher';
  if (transient.length > 0 && attempt.last) {
    const closed = await ctx.db.kysely.transaction().execute((trx) =>
      closeUnsent(
        trx,
        transient.map((o) => o.messageId),
        GAVE_UP_STATUS,
        `not dispatched: ${error}`.slice(0, 500),
        null,
        Date.now(),
      ),
    );
    countMessages(pipelineMetrics(ctx.metrics.registry), closed, 'undelivered');
    return;
  }
  // Messages another dispatcher holds (an inline OTP send) are checked again
  // later: if it dies or the carrier fails it, this job sends them.
  const left = await pending();
  if (transient.length === 0 && left.length === 0) return;
  const backoff = Math.min(ctx.config.DISPATCH_RETRY_MS * 2 ** (attempt.attempt - 1), 600_000);
  throw new RetryLater(untilFirstExpiry(left, backoff), error);
}

/** The retry delay, shortened so the next run comes when the first of these messages' validity ends (to close it then). */
function untilFirstExpiry(rows: Array<{ valid_until?: number | string | null }>, delay: number): number {
  const now = Date.now();
  let first = delay;
  for (const r of rows)
    if (r.valid_until !== null && r.valid_until !== undefined) first = Math.min(first, Number(r.valid_until) - now + 1);
  return Math.max(first, 1);
}

/**
 * Submits the given messages (those still at stage 0 and not claimed) and
 * records the outcome of each. Used by the dispatch job and, inline, by
 * senders that must know at once whether the carrier took the message (OTP).
 *
 * At most once in normal operation:
 * - a batch is claimed only when it is its turn at the carrier's pace (after
 *   the Pacer), by one conditional UPDATE that writes claimed_until and this
 *   hand-off's claim_token, so two dispatchers never submit it both;
 * - while submit() runs (however long a carrier throttles) and until its
 *   outcome is recorded, the claim is renewed every third of JOB_LEASE_MS;
 * - within one process, a message being handed over is never handed over by a
 *   second dispatcher, even if its claim ran out while the process stalled
 *   (CarrierRegistry.inFlight); across processes the claim is the guard, so
 *   JOB_LEASE_MS must stay well above the longest pause of a live process;
 * - the outcome is recorded in one transaction, retried for up to
 *   RECORD_RETRY_FOR_MS while the claim is kept, so a failing write does not
 *   release the batch for a second hand-off.
 * The claim is the durable record of the hand-off: a message at stage 0 whose
 * claim ran out with a token set was in flight (submitted, outcome not yet
 * recorded) when its dispatcher died; only those are handed over again, once
 * the claim expires. A carrier without idempotency cannot tell us whether it
 * took them, so this window (at most one batch per dispatcher at the crash
 * instant) cannot be closed on our side: see docs/contributors/architecture.md.
 * `signal` (the job's lease) stops it before the next batch.
 * `own`: the inline dispatch's claim, which its messages were inserted with
 * (send.ts): they are this caller's, and while at least half of that
 * lease is left a batch of them is submitted without a claim update (the
 * renewals of keepClaimed start a third of a lease later); otherwise they are
 * claimed anew like the others.
 * `holdMs`: for messages without a dispatch job (the inline dispatch, the
 * unsent sweep), a transient failure keeps them claimed for this back-off
 * instead of releasing them, so the unsent sweep retries them then.
 */
export async function dispatchMessages(
  ctx: DispatchContext,
  messageIds: number[],
  signal?: AbortSignal,
  own?: InlineClaim,
  holdMs?: number,
): Promise<DispatchOutcome[]> {
  const results: DispatchOutcome[] = [];
  for (let i = 0; i < messageIds.length; i += 1000) {
    const now = Date.now();
    let candidates = await ctx.db.kysely
      .selectFrom('messages')
      .select([...HANDED_OVER, 'claim_token'])
      .where('id', 'in', messageIds.slice(i, i + 1000))
      .where('stage', '=', 0)
      .where((eb) =>
        eb.or([
          eb('claimed_until', 'is', null),
          eb('claimed_until', '<', now),
          ...(own ? [eb('claim_token', '=', own.token)] : []),
        ]),
      )
      .orderBy('id')
      .execute();
    // First: one the carrier accepted is sent, whatever happened to its account or validity since.
    candidates = await withoutAccepted(ctx, candidates, own, results);
    const suspended = await closeSuspended(ctx, candidates);
    const expired = await closeExpired(
      ctx,
      candidates.filter((c) => !suspended.has(c.id)),
      now,
    );
    const optedOut = await closeOptedOut(ctx, candidates, new Set([...suspended, ...expired]));
    const held = new Set([...suspended, ...expired, ...optedOut.keys()]);
    for (const id of held) {
      const error = suspended.has(id) ? SUSPENDED_ERROR : expired.has(id) ? EXPIRED_ERROR : optedOut.get(id)!;
      results.push({ messageId: id, outcome: { ok: false, permanent: true, error } });
    }
    if (held.size > 0) candidates = candidates.filter((c) => !held.has(c.id));
    // A parked message (left for another process's bind) was never written to a carrier.
    const orphaned = candidates.filter(
      (c) => c.claim_token !== null && c.claim_token !== own?.token && !isParked(c.claim_token),
    ).length;
    if (orphaned > 0)
      ctx.log.warn(
        { count: orphaned },
        'handing over messages whose claim ran out: in flight, or about to be, when their dispatcher stopped',
      );
    const byId = new Map(candidates.map((c) => [c.id, c]));
    const families = await ctx.sendRules.families(ctx.db.kysely, [...new Set(candidates.map((c) => c.account_id))]);
    for (const channel of new Set(candidates.map((c) => c.channel))) {
      const ids = candidates.filter((c) => c.channel === channel).map((c) => c.id);
      const route = ctx.carriers.route(channel);
      if (!route) {
        for (const id of ids)
          results.push({
            messageId: id,
            outcome: { ok: false, permanent: false, error: `no carrier for channel ${channel}` },
          });
        continue;
      }
      for (let j = 0; j < ids.length; j += route.driver.maxBatch) {
        if (signal?.aborted) throw signal.reason;
        const slice = ids.slice(j, j + route.driver.maxBatch);
        await route.pacer.take(slice.length);
        const taken = ownedBatch(ctx, slice, byId, own);
        const token = taken ? own!.token : randomUUID();
        const claimed = taken
          ? { rows: taken, fence: new Fence(ctx.config.JOB_LEASE_MS, own!.until - ctx.config.JOB_LEASE_MS) }
          : await claim(ctx, slice, token, own?.token);
        const batch = claimed.rows.filter((r) => !ctx.carriers.inFlight.has(r.id));
        if (batch.length === 0) continue;
        for (const r of batch) ctx.carriers.inFlight.add(r.id);
        try {
          const outcomes = await keepClaimed(
            ctx,
            batch.map((r) => r.id),
            token,
            claimed.fence,
            async () => {
              const outcomes = await submitBatch(route.driver, batch, claimed.fence, families);
              await recordDurably(ctx, route.driver.name, batch, outcomes, {
                token,
                holdMs,
                parkMs: holdMs ?? ctx.config.DISPATCH_RETRY_MS,
              });
              return outcomes;
            },
          );
          if (outcomes.some((o) => !o.ok && o.permanent)) ctx.worker.nudge(); // refusals wrote confirmation events
          countOutcomes(
            pipelineMetrics(ctx.metrics.registry),
            channel,
            outcomes,
            REFUSED_STATUS,
            batch.map((r) => r.traffic_class ?? 'bulk'),
          );
          batch.forEach((r, k) => results.push({ messageId: r.id, outcome: outcomes[k] }));
        } finally {
          for (const r of batch) ctx.carriers.inFlight.delete(r.id);
        }
      }
    }
  }
  return results;
}

/**
 * Of messages whose claim ran out (a token set: in flight when their
 * dispatcher stopped), those the carrier had accepted, with their carrier
 * ids recorded, are recorded as sent rather than handed over again
 * (accepted-unrecorded.ts); the others are returned. Messages a dispatcher of
 * this process is handing over are left to it.
 */
async function withoutAccepted<C extends { id: number; channel: Channel; claim_token?: string | null }>(
  ctx: DispatchContext,
  candidates: C[],
  own: InlineClaim | undefined,
  results: DispatchOutcome[],
): Promise<C[]> {
  const lapsed = candidates.filter(
    (c) =>
      c.claim_token != null &&
      c.claim_token !== own?.token &&
      !isParked(c.claim_token) &&
      !ctx.carriers.inFlight.has(c.id),
  );
  if (lapsed.length === 0) return candidates;
  const accepted = await recordAcceptedUnrecorded(ctx, lapsed);
  if (accepted.size === 0) return candidates;
  for (const id of accepted) results.push({ messageId: id, outcome: { ok: true } });
  return candidates.filter((c) => !accepted.has(c.id));
}

const SUSPENDED_ERROR = 'not sent: the operator archived the account or its parent';

/**
 * Narrows a query on `accounts` to those whose sends go out: not suspended,
 * nor their parent. A sub-account its parent archived through the API is not
 * suspended: what it had accepted is still delivered (see Sub-accounts).
 */
function activeSender<O>(accounts: SelectQueryBuilder<Database, 'accounts', O>) {
  return accounts
    .leftJoin('accounts as parent', 'parent.id', 'accounts.parent_id')
    .select('accounts.id')
    .where('accounts.suspended', '=', 0)
    .where((eb) => eb.or([eb('accounts.parent_id', 'is', null), eb('parent.suspended', '=', 0)]));
}

/**
 * Messages of a suspended family (the operator archived the account or its
 * parent after they were accepted, scheduled ones included) are never handed
 * over: they are closed as refused and refunded to their account, with their
 * confirmation events. Returns the ids closed here.
 */
async function closeSuspended(
  ctx: Pick<AppContext, 'db' | 'worker' | 'metrics'>,
  candidates: Array<{ id: number; account_id: number }>,
): Promise<Set<number>> {
  const accountIds = [...new Set(candidates.map((c) => c.account_id))];
  if (accountIds.length === 0) return new Set();
  const active = await activeSender(ctx.db.kysely.selectFrom('accounts'))
    .where('accounts.id', 'in', accountIds)
    .execute();
  const suspended = new Set(accountIds.filter((id) => !active.some((a) => a.id === id)));
  if (suspended.size === 0) return new Set();
  const ids = candidates.filter((c) => suspended.has(c.account_id)).map((c) => c.id);
  const now = Date.now();
  const closed = await ctx.db.kysely
    .transaction()
    .execute((trx) => closeUnsent(trx, ids, REFUSED_STATUS, SUSPENDED_ERROR, null, now));
  countMessages(pipelineMetrics(ctx.metrics.registry), closed, 'refused');
  ctx.worker.nudge(); // confirmation events to deliver
  return new Set(ids);
}

/**
 * Messages to a number that opted out, or went on the do-not-contact list,
 * after they were accepted (scheduled ones, a queue that waited) are never
 * handed over either: closed with status 10 and refunded, with their
 * confirmation events. Returns their ids with the error recorded.
 */
async function closeOptedOut(
  ctx: Pick<AppContext, 'db' | 'worker'>,
  candidates: Array<{ id: number }>,
  held: Set<number>,
): Promise<Map<number, string>> {
  const found = await optedOutMessages(
    ctx.db.kysely,
    candidates.filter((c) => !held.has(c.id)).map((c) => c.id),
  );
  if (found.size === 0) return found;
  const now = Date.now();
  await ctx.db.kysely.transaction().execute(async (trx) => {
    for (const error of new Set(found.values())) {
      const ids = [...found].filter(([, e]) => e === error).map(([id]) => id);
      await closeUnsent(trx, ids, OPTOUT_STATUS, error, null, now);
    }
  });
  ctx.worker.nudge(); // confirmation events to deliver
  return found;
}

/** The columns a hand-off submits and records, which claim() returns. */
const HANDED_OVER = [
  'id',
  'account_id',
  'reference',
  'channel',
  'country_code',
  'number',
  'text',
  'sender',
  'flash',
  'meta',
  'price_units',
  'extra_params',
  'traffic_class',
  'valid_until',
] as const;

type Claimed = Awaited<ReturnType<typeof claim>>;
type Candidate = Claimed['rows'][number] & { claim_token?: string | null };

/**
 * The batch as it is, when every message of it was inserted claimed by `own`
 * and at least half of that lease is left: no claim to write. Else undefined.
 */
function ownedBatch(
  ctx: Pick<DispatchContext, 'config'>,
  ids: number[],
  byId: Map<number, Candidate>,
  own: InlineClaim | undefined,
) {
  if (!own || own.until - Date.now() < ctx.config.JOB_LEASE_MS / 2) return undefined;
  const rows = ids.map((id) => byId.get(id)!);
  return rows.every((r) => r.claim_token === own.token) ? rows : undefined;
}

/**
 * Claims the batch for `token`: messages nobody holds, or held by `own` (the caller's claim at insert). The fence
 * counts from before the write was sent: an answer that comes late (a network that healed) extends nothing.
 */
async function claim(ctx: DbAndConfig, ids: number[], token: string, own?: string) {
  const now = Date.now();
  const fence = new Fence(ctx.config.JOB_LEASE_MS, now);
  const rows = await ctx.db.kysely
    .updateTable('messages')
    .set({ claimed_until: now + ctx.config.JOB_LEASE_MS, claim_token: token })
    .where('id', 'in', ids)
    .where('stage', '=', 0)
    .where((eb) =>
      eb.or([
        eb('claimed_until', 'is', null),
        eb('claimed_until', '<', now),
        ...(own ? [eb('claim_token', '=', own)] : []),
      ]),
    )
    // Its validity ended while the batch waited for its turn: never sent, the next run closes it (closeExpired).
    .where((eb) => eb.or([eb('valid_until', 'is', null), eb('valid_until', '>', now)]))
    // An account archived while the batch waited for its turn: the next run closes its messages (closeSuspended).
    .where((eb) =>
      eb.exists(activeSender(eb.selectFrom('accounts').whereRef('accounts.id', '=', 'messages.account_id'))),
    )
    .returning(HANDED_OVER)
    .execute();
  return { rows: rows.sort((a, b) => a.id - b.id), fence };
}

/**
 * Runs `work` while renewing the claim `token` holds on `ids` every third of JOB_LEASE_MS, one renewal at a time.
 * A renewal that still found every message under `token` extends the fence from when it was sent; one that
 * failed, hung or found fewer leaves the fence to close, and the batch's messages not yet written to the carrier
 * are not handed over by this process.
 */
async function keepClaimed<T>(
  ctx: Pick<AppContext, 'config' | 'db' | 'log'>,
  ids: number[],
  token: string,
  fence: Fence,
  work: () => Promise<T>,
): Promise<T> {
  const leaseMs = ctx.config.JOB_LEASE_MS;
  let renewing = false;
  const renew = async () => {
    renewing = true;
    const sentAt = Date.now();
    try {
      // On PostgreSQL rows another transaction holds (a record, a receipt) are skipped, never waited for: a
      // renewal that waits while holding the rows it renewed is one half of a deadlock.
      const rows = await ctx.db.kysely
        .updateTable('messages')
        .set({ claimed_until: sentAt + leaseMs })
        .where('id', 'in', ids)
        .where('claim_token', '=', token)
        .$if(ctx.db.engine === 'postgres', (q) =>
          q.where('id', 'in', (eb) =>
            eb
              .selectFrom('messages')
              .select('id')
              .where('id', 'in', ids)
              .where('claim_token', '=', token)
              .forUpdate()
              .skipLocked(),
          ),
        )
        .returning('id')
        .execute();
      if (rows.length === ids.length) fence.renewed(sentAt);
    } catch (err) {
      ctx.log.warn({ err }, 'renewing message claims failed');
    } finally {
      renewing = false;
    }
  };
  const timer = setInterval(() => void (renewing || renew()), Math.max(Math.floor(leaseMs / 3), 10));
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

async function submitBatch(
  driver: CarrierDriver,
  batch: Claimed['rows'],
  fence: Fence,
  families: Map<number, { family: number; weight: number }>,
): Promise<SubmitOutcome[]> {
  if (!fence.valid) return batch.map(() => ({ ok: false as const, permanent: false, error: FENCED_ERROR }));
  const outbound: OutboundMessage[] = batch.map((r) => ({
    fence,
    id: r.id,
    reference: r.reference,
    channel: r.channel,
    countryCode: r.country_code,
    number: r.number,
    text: r.text,
    sender: r.sender,
    flash: r.flash === 1,
    meta: r.meta ? JSON.parse(r.meta) : null,
    accountId: r.account_id,
    traffic: {
      class: r.traffic_class ?? 'bulk',
      family: families.get(r.account_id)?.family ?? r.account_id,
      weight: families.get(r.account_id)?.weight ?? 1,
    },
    validUntil: r.valid_until == null ? null : Number(r.valid_until),
  }));
  try {
    const outcomes = await driver.submit(outbound);
    if (outcomes.length !== batch.length)
      throw new Error(
        `carrier driver ${driver.name} answered ${outcomes.length} outcomes for ${batch.length} messages`,
      );
    return outcomes;
  } catch (err) {
    return batch.map(() => ({ ok: false as const, permanent: false, error: (err as Error).message }));
  }
}
