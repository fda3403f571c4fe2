import type { Selectable } from 'kysely';
import type { AppContext } from '../context.js';
import { JOB_SETTLED } from '../jobs/worker.js';
import { claimJobs } from '../jobs/queue.js';
import { webhookSecret } from './endpoint-store.js';
import { decrypt } from '../lib/secrets.js';
import type { EventsTable } from './tables.js';
import { HostSlots } from './host-slots.js';
import { Agent } from 'undici';
import { send, type HttpAnswer } from '../outbound/http.js';
import { signatureHeaders } from '../outbound/signature.js';
import { webhookMetrics, type WebhookMetrics } from './metrics.js';
import { DELIVER_JOB } from './record.js';
import { renewHeldJobs, type HeldJob } from '../jobs/held-jobs.js';
import { compiledOnce } from '../db/prepared.js';
import { OutcomeWriter, type AttemptOutcome, type Settlement } from './outcome-writer.js';
import { Fence } from '../lib/fence.js';

/** Per request of the event itself; the HEAD check has its own, shorter limit (WEBHOOK_HEAD_TIMEOUT_MS). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/**
 * How long the lane's job waits for a free slot of its tenant or destination
 * before stepping back in the queue: it holds a lane slot meanwhile. A
 * failing host's jobs step back at once (HostSlots).
 */
const SLOT_WAIT_MS = 200;
/** The same for a job a batch claimed: it waits in memory, in turn with the others. */
const BATCH_SLOT_WAIT_MS = 3_000;
/** A batch's event read longer ago than this is read again before its attempt. */
const FRESH_MS = 1_000;

type EventRow = Selectable<EventsTable>;

/** What a delivery reads of the process (metrics only for the default WebhookMetrics). */
export type DeliveryContext = Pick<
  AppContext,
  'config' | 'db' | 'endpointAlarm' | 'log' | 'metrics' | 'outbound' | 'secrets' | 'worker'
>;

export interface Delivery {
  ctx: DeliveryContext;
  slots: HostSlots;
  /** In-flight deliveries per top-level account (its sub-accounts count with it): WEBHOOK_ACCOUNT_CONCURRENCY. */
  accountSlots: HostSlots;
  writer: OutcomeWriter;
  /** Jobs this process's batches claimed beside the lane's own, not yet recorded. */
  held: number;
}

/**
 * A failing host's (or account's) first step back (HostSlots): 1 s, or a tenth of the retry base when that is shorter,
 * so a service set to retry faster also tries a recovered receiver sooner.
 */
export const failingStepMs = (config: Pick<DeliveryContext['config'], 'WEBHOOK_RETRY_BASE_MS'>) =>
  Math.min(1000, config.WEBHOOK_RETRY_BASE_MS / 10);

/** The delivery state of a process: its slots, its writer, its metrics. */
export function createDelivery(
  ctx: DeliveryContext,
  metrics: WebhookMetrics | undefined = webhookMetrics(ctx),
): Delivery {
  const stepMs = failingStepMs(ctx.config);
  return {
    ctx,
    slots: new HostSlots(ctx.config.WEBHOOK_HOST_CONCURRENCY, stepMs),
    accountSlots: new HostSlots(ctx.config.WEBHOOK_ACCOUNT_CONCURRENCY, stepMs),
    writer: new OutcomeWriter(ctx, metrics),
    held: 0,
  };
}

/**
 * A batch claims between this many jobs beside the lane's own and the
 * maximum, while the jobs the process's batches claimed number fewer than
 * WEBHOOK_CONCURRENCY × 4: at most four full batches per lane of 32 wait on
 * slots, the rest of the lane stays free for single events. A single event
 * costs a lane claim and a read of its own, so a backlog goes mostly in
 * batches.
 */
const BATCH_SHARE = 4;
const BATCH_MIN_EXTRAS = 8;
const BATCH_MAX_EXTRAS = 31;

/**
 * The job `webhooks.deliver` of one event, run as a batch: besides the job
 * the lane claimed, it claims more due delivery jobs in one statement
 * (within the limits above), attempts
 * them all concurrently (each within its tenant's and host's slots), and
 * the outcomes are written in groups (OutcomeWriter), every job of the
 * batch with them, the lane's own included (JOB_SETTLED). The event row
 * decides: only a `pending` event is sent, to the webhook as it is now. A
 * failed attempt schedules the next one on the job row, so it survives a
 * restart; a batch
 * cut short by a crash leaves its jobs leased, to run again once the lease
 * runs out.
 */
export async function deliverEvent(
  d: Delivery,
  eventId: number,
  own: HeldJob,
  ownLease: AbortSignal,
): Promise<typeof JOB_SETTLED> {
  const { ctx } = d;
  const room = ctx.config.WEBHOOK_CONCURRENCY * BATCH_SHARE - d.held;
  // A small claim costs as much as a large one: none when the process holds nearly its share.
  const wanted = room >= BATCH_MIN_EXTRAS ? Math.min(BATCH_MAX_EXTRAS, room) : 0;
  // The room is taken before the claim: the lane's other jobs, starting meanwhile, do not claim it too.
  d.held += wanted;
  let claimed: Awaited<ReturnType<typeof claimJobs>> = [];
  const extrasFence = new Fence(ctx.config.JOB_LEASE_MS, Date.now());
  try {
    if (wanted > 0) claimed = await claimJobs(ctx.db, ctx.worker.id, [DELIVER_JOB], wanted, ctx.config.JOB_LEASE_MS);
  } finally {
    d.held -= wanted - claimed.length;
  }
  const extras = claimed.map((j) => ({
    job: { id: Number(j.id), lockedBy: j.locked_by! },
    eventId: Number((JSON.parse(j.payload) as { eventId: number }).eventId),
  }));
  let unsettled = extras.length;
  // Jobs whose event is not attempted yet: the fence matters for them only.
  const unattempted = new Set(extras.map((e) => e.job.id));
  const stopRenewing =
    extras.length > 0 ? renewWhileRunning(d, extras[0].job.lockedBy, extrasFence, unattempted) : () => undefined;
  try {
    const batch: Batch = {
      rows: await loadEvents(d, [eventId, ...extras.map((e) => e.eventId)]),
      loadedAt: Date.now(),
      secrets: new Map(),
    };
    const settleExtra = async (e: (typeof extras)[number]) => {
      try {
        const settlement = await turn(d, batch, e.eventId, BATCH_SLOT_WAIT_MS, extrasFence).finally(() =>
          unattempted.delete(e.job.id),
        );
        await d.writer.write(settlement, e.job);
      } catch (err) {
        // Left leased: it runs again when the lease runs out.
        ctx.log.warn({ err, eventId: e.eventId }, 'a webhook delivery could not be recorded');
      } finally {
        unsettled--;
        d.held--;
      }
    };
    const others = Promise.all(extras.map(settleExtra));
    try {
      // The lane's job is settled with the others, in the writer's group: the lane writes nothing more.
      const ownFence = {
        get valid() {
          return !ownLease.aborted;
        },
      };
      await d.writer.write(await turn(d, batch, eventId, SLOT_WAIT_MS, ownFence), own);
    } finally {
      await others;
    }
  } finally {
    stopRenewing();
    d.held -= unsettled;
  }
  return JOB_SETTLED;
}

/**
 * Keeps the batch's own jobs leased while it runs (the lane renews its own job), one renewal at a time; one that
 * still held every job not attempted yet extends `fence` from when it was sent (settled jobs leave the lease).
 */
function renewWhileRunning(d: Delivery, lockedBy: string, fence: Fence, unattempted: Set<number>): () => void {
  const leaseMs = d.ctx.config.JOB_LEASE_MS;
  let renewing = false;
  const renew = async () => {
    renewing = true;
    const sentAt = Date.now();
    try {
      const renewed = new Set(await renewHeldJobs(d.ctx.db.kysely, lockedBy, leaseMs, sentAt));
      if ([...unattempted].every((id) => renewed.has(id))) fence.renewed(sentAt);
    } catch (err) {
      d.ctx.log.warn({ err }, 'renewing webhook delivery leases failed');
    } finally {
      renewing = false;
    }
  };
  const timer = setInterval(() => void (renewing || renew()), Math.max(Math.floor(leaseMs / 3), 10));
  return () => clearInterval(timer);
}

type LoadedEvent = Awaited<ReturnType<typeof loadEvents>> extends Map<number, infer R> ? R : never;

/** The events with everything their attempts need, in one query (compiled once per number of events: a batch has 1 to 32). */
const selectEvents = compiledOnce((db, ...ids: number[]) =>
  db
    .selectFrom('events')
    .innerJoin('accounts', 'accounts.id', 'events.account_id')
    .leftJoin('webhooks', 'webhooks.account_id', 'events.account_id')
    .leftJoin('webhook_secrets', 'webhook_secrets.account_id', 'events.account_id')
    .selectAll('events')
    .select([
      'accounts.webhook_method',
      'accounts.parent_id',
      'webhooks.url',
      'webhooks.status as webhook_status',
      'webhooks.backoff_until',
      'webhook_secrets.secret_enc',
    ])
    .where('events.id', 'in', ids),
);

async function loadEvents(d: Delivery, ids: number[]) {
  const { rows } = await selectEvents(d.ctx.db.kysely, ...ids);
  return new Map(rows.map((r) => [Number(r.id), r]));
}

interface Batch {
  rows: Map<number, LoadedEvent>;
  loadedAt: number;
  /** Signing secrets created for accounts that had none when the rows were read, once per account. */
  secrets: Map<number, Promise<string>>;
}

/** What becomes of an event before any attempt, as its row says: nothing, closed, deferred; null when it is to be attempted. */
function beforeAttempt(row: LoadedEvent | undefined, now: number): Settlement | null {
  if (!row || row.state !== 'pending') return { kind: 'none' };
  // A job re-run after a crash must not pull a scheduled retry forward.
  if (row.next_attempt_at !== null && row.next_attempt_at > now + 50)
    return { kind: 'defer', delayMs: row.next_attempt_at - now, reason: 'retry scheduled' };
  if (row.url === null || row.webhook_status !== 1)
    return { kind: 'close', eventId: row.id, state: row.url === null ? 'cancelled' : 'not_delivered' };
  // An endpoint that keeps timing out waits out its back-off; the wait is not an attempt.
  if (row.backoff_until !== null && row.backoff_until > now)
    return {
      kind: 'defer',
      delayMs: row.backoff_until - now + Math.round(Math.random() * 1000),
      reason: 'endpoint backing off',
    };
  return null;
}

/** One event's turn: attempted, closed, deferred, or nothing to do. Never throws for an expected outcome. */
async function turn(
  d: Delivery,
  batch: Batch,
  eventId: number,
  slotWaitMs: number,
  fence: { readonly valid: boolean },
): Promise<Settlement> {
  let row = batch.rows.get(eventId);
  const early = beforeAttempt(row, Date.now());
  if (early || !row) return early ?? { kind: 'none' };
  // A fair share per tenant first (one account and its free sub-accounts cannot fill the lane with their hosts), then per host.
  const tenant = String(row.parent_id ?? row.account_id);
  const host = destinationHost(row.url!);
  if (!(await d.accountSlots.acquire(tenant, slotWaitMs)))
    return { kind: 'defer', delayMs: d.accountSlots.deferMs(tenant), reason: 'account busy' };
  let outcome: AttemptOutcome;
  try {
    if (!(await d.slots.acquire(host, slotWaitMs)))
      return { kind: 'defer', delayMs: d.slots.deferMs(host), reason: 'destination busy' };
    try {
      // After a long wait for a slot the webhook may have changed (deleted, disabled, backing off, another URL): the event is read again.
      if (Date.now() - batch.loadedAt > FRESH_MS) {
        row = (await loadEvents(d, [eventId])).get(eventId);
        const changed = beforeAttempt(row, Date.now());
        if (changed || !row || destinationHost(row.url!) !== host)
          return changed ?? { kind: 'defer', delayMs: 0, reason: 'webhook changed' };
      }
      // This process may no longer hold the job (cut off from the database): left leased, for whoever takes it.
      if (!fence.valid) throw new Error('not delivered: this process could not renew its lease');
      outcome = await attempt(d.ctx, row, {
        url: row.url!,
        method: row.webhook_method === 'GET' ? 'GET' : 'POST',
        secret: await signingSecret(d, batch, row),
      });
    } finally {
      d.slots.release(host);
    }
  } finally {
    d.accountSlots.release(tenant);
  }
  d.slots.outcome(host, outcome.delivered);
  d.accountSlots.outcome(tenant, outcome.delivered);
  const { webhook_method, parent_id, url, webhook_status, backoff_until, secret_enc, ...event } = row;
  return { kind: 'attempt', event, url: url!, outcome, at: Date.now() };
}

/** The account's signing secret: from the row, or created once per batch for an account that had none. */
async function signingSecret(d: Delivery, batch: Batch, row: LoadedEvent): Promise<string> {
  const key = d.ctx.secrets.webhookEncryption;
  if (row.secret_enc) return decryptSecret(key, row.secret_enc);
  let secret = batch.secrets.get(row.account_id);
  if (!secret) batch.secrets.set(row.account_id, (secret = webhookSecret(d.ctx.db.kysely, key, row.account_id)));
  return secret;
}

/** Decrypted signing secrets by their sealed form: decrypting one per attempt is wasted work. */
const secrets = new Map<string, string>();
function decryptSecret(key: Buffer, sealed: string): string {
  let plain = secrets.get(sealed);
  if (plain === undefined) {
    plain = decrypt(key, sealed);
    if (secrets.size >= 1000) secrets.delete(secrets.keys().next().value!);
    secrets.set(sealed, plain);
  }
  return plain;
}

const destinationHost = (url: string) => {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return url;
  }
};

/** The HEAD check passes unless the receiver is gone (404, 410), failing (5xx) or silent. */
const headPasses = (a: HttpAnswer) => a.status !== null && a.status !== 404 && a.status !== 410 && a.status < 500;

/** HEAD, then the event by GET (query) or POST (form), signed. Success is HTTP 200. */
async function attempt(
  ctx: Pick<AppContext, 'config' | 'outbound'>,
  event: EventRow,
  to: { url: string; method: 'GET' | 'POST'; secret: string },
): Promise<AttemptOutcome> {
  const { url, method } = to;
  const params = new URLSearchParams(JSON.parse(event.payload) as Record<string, string>).toString();
  const target = new URL(url);
  target.hash = '';
  if (method === 'GET') target.search = target.search ? `${target.search.slice(1)}&${params}` : params;
  // The signed body is what travels: the form body, or the whole query string of a GET.
  const signed = method === 'GET' ? target.search.slice(1) : params;
  const headers = signatureHeaders(to.secret, event.uid ?? `msg_${event.id}`, Math.floor(Date.now() / 1000), signed);

  // One resolution and address check per attempt: HEAD and the event both go to the address checked.
  const agent = await ctx.outbound.checked(url, ctx.config.WEBHOOK_ALLOW_PRIVATE, ctx.config.WEBHOOK_HEAD_TIMEOUT_MS);
  if (!(agent instanceof Agent)) return { ...agent, method: 'HEAD', delivered: false };
  // Short: a receiver that never answers HEAD must not hold a slot for long.
  const head = await send(agent, url, { method: 'HEAD', timeoutMs: ctx.config.WEBHOOK_HEAD_TIMEOUT_MS });
  if (!headPasses(head))
    return { ...head, method: 'HEAD', delivered: false, error: head.error ?? `HEAD answered ${head.status}` };
  if (method === 'POST') headers['content-type'] = 'application/x-www-form-urlencoded';
  const res = await send(agent, target.toString(), {
    method,
    headers,
    body: method === 'GET' ? undefined : params,
    timeoutMs: DELIVERY_TIMEOUT_MS,
  });
  const delivered = res.status === 200;
  return {
    ...res,
    durationMs: head.durationMs + res.durationMs,
    method,
    delivered,
    error: delivered ? null : (res.error ?? `answered ${res.status}`),
  };
}
