import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { affected, type Executor } from '../db/engine.js';
import { prepared } from '../db/prepared.js';
import { formatLocal } from '../lib/time.js';
import { timeOrderedId } from '../lib/ids.js';
import { shownEmail } from '../accounts/subaccount-email.js';

/** Back-off after the Nth timeout in a row: 30 s, doubling, at most 15 min. */
const BACKOFF_BASE_MS = 30_000;
const BACKOFF_MAX_MS = 15 * 60_000;

export const backoffMs = (timeoutsOverThreshold: number): number =>
  Math.min(BACKOFF_BASE_MS * 2 ** Math.max(0, timeoutsOverThreshold), BACKOFF_MAX_MS);

/** A customer endpoint that deliveries disabled, as the operator hears of it. */
export interface DisabledEndpoint {
  /** The account as shown to the operator (its email, a sub-account's shown as such). */
  account: string;
  accountId: number;
  /** The endpoint without its query, which may carry a token. */
  url: string;
  failingSince: number;
  now: number;
}

/** What webhooks tell the operator of: alerts/episodes.ts implements it, src/app/boot.ts puts it in the context. */
export interface EndpointAlarm {
  /** In the transaction that disabled the endpoint. */
  disabled(trx: Executor, endpoint: DisabledEndpoint): Promise<void>;
}

declare module '../context.js' {
  interface AppContext {
    endpointAlarm: EndpointAlarm;
  }
}

/** What the endpoints' health reads of the process. */
export type HealthContext = Pick<AppContext, 'config' | 'endpointAlarm'>;

export interface AttemptResult {
  delivered: boolean;
  timedOut: boolean;
  url: string;
  error: string | null;
}

/** A success clears the endpoint's failure record (a statement that writes nothing when it is healthy). */
export async function clearEndpointHealth(trx: Executor, accountId: number): Promise<void> {
  await clearHealth(trx, { accountId });
}

const clearHealth = prepared<{ accountId: number }, never>((db, slot) =>
  db
    .updateTable('webhooks')
    .set({ failing_since: null, timeouts: 0, backoff_until: null })
    .where('account_id', '=', slot('accountId'))
    .where((eb) => eb.or([eb('failing_since', 'is not', null), eb('timeouts', '>', 0)])),
);

/**
 * The health of an account's endpoint after an attempt, in the attempt's
 * transaction. A success clears it. A failure starts (or continues) the
 * failing run; a timeout counts toward the back-off (WEBHOOK_TIMEOUTS_BEFORE_BACKOFF
 * in a row: deliveries wait, longer each time). An endpoint failing for
 * WEBHOOK_DISABLE_AFTER_HOURS is disabled (the Svix / Standard Webhooks
 * practice) and the account gets a `webhook_disabled` event it can see in
 * /webhook/get and `events list`.
 */
export async function recordEndpointHealth(
  trx: Executor,
  ctx: HealthContext,
  accountId: number,
  r: AttemptResult,
  now: number,
): Promise<void> {
  const { config } = ctx;
  if (r.delivered) return clearEndpointHealth(trx, accountId);
  const row = await trx
    .updateTable('webhooks')
    .set({
      failing_since: sql`coalesce(failing_since, ${now})`,
      timeouts: r.timedOut ? sql`timeouts + 1` : sql`timeouts`,
    })
    .where('account_id', '=', accountId)
    .where('url', '=', r.url)
    .returning(['failing_since', 'timeouts', 'status'])
    .executeTakeFirst();
  if (!row) return; // replaced or deleted meanwhile
  const over = row.timeouts - config.WEBHOOK_TIMEOUTS_BEFORE_BACKOFF;
  if (r.timedOut && over >= 0) {
    const until = now + backoffMs(over);
    await trx
      .updateTable('webhooks')
      .set({ backoff_until: until })
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('backoff_until', 'is', null), eb('backoff_until', '<', until)]))
      .execute();
  }
  const disableAfterMs = config.WEBHOOK_DISABLE_AFTER_HOURS * 3600_000;
  if (row.status === 1 && row.failing_since !== null && now - Number(row.failing_since) >= disableAfterMs) {
    await disableEndpoint(trx, ctx, accountId, r, Number(row.failing_since), now);
  }
}

async function disableEndpoint(
  trx: Executor,
  ctx: HealthContext,
  accountId: number,
  r: AttemptResult,
  failingSince: number,
  now: number,
): Promise<void> {
  const reason = `every delivery failed since ${formatLocal(failingSince)} (last error: ${r.error ?? 'unknown'})`.slice(
    0,
    500,
  );
  const disabled = await trx
    .updateTable('webhooks')
    .set({ status: 0, disabled_at: now, disabled_reason: reason, version: sql`version + 1`, updated_at: now })
    .where('account_id', '=', accountId)
    .where('status', '=', 1)
    .executeTakeFirst();
  if (affected(disabled) !== 1) return; // another process disabled it first
  // The events still waiting will not be sent: they end as not_delivered, like those of a webhook the account disabled.
  await trx
    .updateTable('events')
    .set({ state: 'not_delivered', next_attempt_at: null })
    .where('account_id', '=', accountId)
    .where('state', '=', 'pending')
    .execute();
  await trx
    .insertInto('events')
    .values({
      account_id: accountId,
      type: 'webhook_disabled',
      reference: '',
      payload: JSON.stringify({ type: 'webhook_disabled', url: r.url, reason, date: formatLocal(now) }),
      state: 'not_delivered',
      created_at: now,
      delivered_at: null,
      uid: `msg_${timeOrderedId()}`,
    })
    .execute();
  await alertOperator(trx, ctx, accountId, r.url, failingSince, now);
}

/** The operator's webhook_disabled alert, in the transaction that disabled the endpoint. */
async function alertOperator(
  trx: Executor,
  ctx: HealthContext,
  accountId: number,
  url: string,
  failingSince: number,
  now: number,
): Promise<void> {
  const account = await trx.selectFrom('accounts').select('email').where('id', '=', accountId).executeTakeFirst();
  const shown = new URL(url);
  await ctx.endpointAlarm.disabled(trx, {
    account: account ? shownEmail(account.email) : String(accountId),
    accountId,
    url: `${shown.origin}${shown.pathname}`,
    failingSince,
    now,
  });
}

/** Clears the health of an endpoint the account enables or registers again. */
export const healthyEndpoint = {
  failing_since: null,
  timeouts: 0,
  backoff_until: null,
  disabled_at: null,
  disabled_reason: null,
} as const;
