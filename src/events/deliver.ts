import type { Selectable } from 'kysely';
import type { AppContext } from '../context.js';
import { RetryLater } from '../jobs/worker.js';
import { webhookSecret } from '../features/webhooks/store.js';
import { decrypt } from '../lib/secrets.js';
import type { EventsTable } from './tables.js';
import { HostSlots } from './host-slots.js';
import { sendChecked, type HttpAnswer } from './http.js';
import { withoutStack } from './addresses.js';
import { MAX_RETRIES, retryDelayMs } from './schedule.js';
import { signatureHeaders } from './signature.js';
import { recordEndpointHealth } from './endpoint-health.js';
import type { WebhookMetrics } from './metrics.js';

/** Per request of the event itself; the HEAD check has its own, shorter limit (WEBHOOK_HEAD_TIMEOUT_MS). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How long a job waits for a free slot of its destination before stepping back in the queue. */
const HOST_WAIT_MS = 200;

type EventRow = Selectable<EventsTable>;

export interface Delivery {
  ctx: AppContext;
  slots: HostSlots;
  /** In-flight deliveries per top-level account (its sub-accounts count with it): WEBHOOK_ACCOUNT_CONCURRENCY. */
  accountSlots: HostSlots;
  metrics?: WebhookMetrics;
}

/**
 * One attempt at delivering an event (the job `webhooks.deliver`). The event
 * row decides: only a `pending` event is sent, to the webhook as it is now.
 * A failed attempt schedules the next one by throwing RetryLater, so the job
 * row itself carries the next attempt time and survives a restart.
 */
export async function deliverEvent(d: Delivery, eventId: number): Promise<void> {
  const db = d.ctx.db.kysely;
  // The event with everything its attempt needs, in one query.
  const row = await db
    .selectFrom('events')
    .innerJoin('accounts', 'accounts.id', 'events.account_id')
    .leftJoin('webhooks', 'webhooks.account_id', 'events.account_id')
    .leftJoin('webhook_secrets', 'webhook_secrets.account_id', 'events.account_id')
    .selectAll('events')
    .select(['accounts.webhook_method', 'accounts.parent_id', 'webhooks.url', 'webhooks.status as webhook_status', 'webhooks.backoff_until', 'webhook_secrets.secret_enc'])
    .where('events.id', '=', eventId)
    .executeTakeFirst();
  if (!row || row.state !== 'pending') return;
  const { webhook_method, parent_id, url, webhook_status, backoff_until, secret_enc, ...event } = row;
  const now = Date.now();
  // A job re-run after a crash must not pull a scheduled retry forward.
  if (event.next_attempt_at !== null && event.next_attempt_at > now + 50) throw new RetryLater(event.next_attempt_at - now, 'retry scheduled');

  if (url === null || webhook_status !== 1) {
    await db
      .updateTable('events')
      .set({ state: url === null ? 'cancelled' : 'not_delivered', next_attempt_at: null })
      .where('id', '=', event.id)
      .where('state', '=', 'pending')
      .execute();
    return;
  }
  // An endpoint that keeps timing out waits out its back-off; the wait is not an attempt.
  if (backoff_until !== null && backoff_until > now) throw new RetryLater(backoff_until - now + Math.round(Math.random() * 1000), 'endpoint backing off');
  const key = d.ctx.secrets.webhookEncryption;
  const secret = secret_enc ? decrypt(key, secret_enc) : await webhookSecret(db, key, event.account_id);
  const host = destinationHost(url);
  // A fair share per tenant first (one account and its free sub-accounts cannot fill the lane with their hosts), then per host.
  const tenant = String(parent_id ?? event.account_id);
  if (!(await d.accountSlots.acquire(tenant, HOST_WAIT_MS))) throw new RetryLater(d.accountSlots.deferMs(tenant), 'account busy');
  let outcome: AttemptOutcome;
  try {
    if (!(await d.slots.acquire(host, HOST_WAIT_MS))) throw new RetryLater(d.slots.deferMs(host), 'destination busy');
    try {
      outcome = await attempt(d.ctx, event, { url, method: webhook_method === 'GET' ? 'GET' : 'POST', secret });
    } finally {
      d.slots.release(host);
    }
  } finally {
    d.accountSlots.release(tenant);
  }
  d.slots.outcome(host, outcome.delivered);
  d.accountSlots.outcome(tenant, outcome.delivered);
  const retryIn = await recordAttempt(d, event, url, outcome);
  if (retryIn !== null) throw withoutStack(() => new RetryLater(retryIn, outcome.error ?? 'not delivered'));
}

const destinationHost = (url: string) => {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return url;
  }
};

interface AttemptOutcome extends HttpAnswer {
  method: string;
  delivered: boolean;
}

/** The HEAD check passes unless the receiver is gone (404, 410), failing (5xx) or silent. */
const headPasses = (a: HttpAnswer) => a.status !== null && a.status !== 404 && a.status !== 410 && a.status < 500;

/** HEAD, then the event by GET (query) or POST (form), signed. Success is HTTP 200. */
async function attempt(ctx: AppContext, event: EventRow, to: { url: string; method: 'GET' | 'POST'; secret: string }): Promise<AttemptOutcome> {
  const { url, method } = to;
  const params = new URLSearchParams(JSON.parse(event.payload) as Record<string, string>).toString();
  const target = new URL(url);
  target.hash = '';
  if (method === 'GET') target.search = target.search ? `${target.search.slice(1)}&${params}` : params;
  // The signed body is what travels: the form body, or the whole query string of a GET.
  const signed = method === 'GET' ? target.search.slice(1) : params;
  const headers = signatureHeaders(to.secret, event.uid ?? `msg_${event.id}`, Math.floor(Date.now() / 1000), signed);

  const allowPrivate = ctx.config.WEBHOOK_ALLOW_PRIVATE;
  // Short: a receiver that never answers HEAD must not hold a slot for long.
  const head = await sendChecked(url, allowPrivate, { method: 'HEAD', timeoutMs: ctx.config.WEBHOOK_HEAD_TIMEOUT_MS });
  if (!headPasses(head)) return { ...head, method: 'HEAD', delivered: false, error: head.error ?? `HEAD answered ${head.status}` };
  const res =
    method === 'GET'
      ? await sendChecked(target.toString(), allowPrivate, { method, headers, timeoutMs: DELIVERY_TIMEOUT_MS })
      : await sendChecked(target.toString(), allowPrivate, { method, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: params, timeoutMs: DELIVERY_TIMEOUT_MS });
  const delivered = res.status === 200;
  return { ...res, durationMs: head.durationMs + res.durationMs, method, delivered, error: delivered ? null : (res.error ?? `answered ${res.status}`) };
}

/**
 * Logs the attempt and moves the event, in one transaction: delivered,
 * failed after the last retry, or pending with its next attempt time.
 * Returns the delay before the next attempt, or null when there is none.
 */
async function recordAttempt(d: Delivery, event: EventRow, url: string, o: AttemptOutcome): Promise<number | null> {
  const now = Date.now();
  const attempts = event.attempts + 1;
  // A forbidden address (private, local, reserved) will not change by retrying: failed at once.
  const exhausted = !o.delivered && (attempts > MAX_RETRIES || o.forbidden === true);
  const retryIn = o.delivered || exhausted ? null : retryDelayMs(attempts, d.ctx.config.WEBHOOK_RETRY_BASE_MS);
  const moved = await d.ctx.db.kysely.transaction().execute(async (trx) => {
    await trx
      .insertInto('event_attempts')
      .values({ event_id: event.id, account_id: event.account_id, attempted_at: now, url, method: o.method, http_status: o.status, duration_ms: o.durationMs, error: o.error?.slice(0, 500) ?? null })
      .execute();
    const result = await trx
      .updateTable('events')
      .set({
        state: o.delivered ? 'delivered' : exhausted ? 'failed' : 'pending',
        attempts,
        delivered_at: o.delivered ? now : null,
        next_attempt_at: retryIn === null ? null : now + retryIn,
        last_status: o.status,
        last_error: o.error?.slice(0, 500) ?? null,
      })
      .where('id', '=', event.id)
      .where('state', '=', 'pending')
      .where('attempts', '=', event.attempts)
      .executeTakeFirst();
    await recordEndpointHealth(trx, d.ctx, event.account_id, { delivered: o.delivered, timedOut: o.error === 'timeout', url, error: o.error }, now);
    return Number(result.numUpdatedRows ?? 0n) === 1;
  });
  d.metrics?.attempts.inc({ result: o.delivered ? 'delivered' : 'failed' });
  if (!moved) return null; // cancelled, disabled or redelivered meanwhile: this job's work is over
  if (o.delivered) {
    d.metrics?.delivered.inc();
    d.metrics?.latency.observe((now - event.created_at) / 1000);
  } else if (exhausted) d.metrics?.failed.inc();
  return retryIn;
}
