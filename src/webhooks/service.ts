import type { AppContext, BaseContext, DbAndConfig, WithConfig, WithDb } from '../context.js';
import { badRequest } from '../http/errors.js';
import { ForbiddenDestination, resolveDestination } from '../outbound/addresses.js';
import { safeAgent, send } from '../outbound/http.js';
import { deleteWebhook, findWebhook, saveWebhook, setWebhookStatus } from './endpoint-store.js';
import { failedEventIdsSince, listEvents, redeliverEvent } from './events-store.js';
import { recordEvents } from './record.js';
import { rotateWebhookSecret, webhookSecret } from './endpoint-store.js';
import { failingEndpoints } from './failing-store.js';
import { ApiError } from '../http/errors.js';
import { formatCompact } from '../lib/time.js';
import type { EventState } from './tables.js';
import { defineMessages } from '../http/codes.js';
export { findWebhook, rotateWebhookSecret, webhookSecret, type Webhook } from './endpoint-store.js';
export { listEvents, type LoggedEvent } from './events-store.js';
export { failingEndpoints, type FailingEndpoint } from './failing-store.js';

defineMessages({
  no_such_event: 'No such event',
  test_event_needs_webhook: 'The account has no enabled webhook',
  redeliver_pending: 'The event is already waiting for delivery',
});

/** The registration check's time limit (spec, Limits). */
export const REGISTRATION_TIMEOUT_MS = 5_000;
export const MAX_URL_LENGTH = 2048;

/** http(s), a host, no credentials, at most 2048 characters; the address rules come later. */
export function urlIsWellFormed(value: string): boolean {
  if (value.length > MAX_URL_LENGTH) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.hostname !== '' &&
    url.username === '' &&
    url.password === ''
  );
}

/**
 * The spec's registration check: the host must resolve to public addresses
 * only (add_webhook_03 otherwise, unless WEBHOOK_ALLOW_PRIVATE), then a GET
 * within 5 s, redirects not followed, must get any answer but 404
 * (add_webhook_06 for 404, a timeout, an unknown host or a refused connection).
 */
export async function checkRegistration(ctx: WithConfig, url: string): Promise<void> {
  const allowPrivate = ctx.config.WEBHOOK_ALLOW_PRIVATE;
  const { hostname } = new URL(url);
  try {
    await resolveDestination(hostname, allowPrivate);
  } catch (err) {
    if (err instanceof ForbiddenDestination)
      throw badRequest('add_webhook_03', 'The URL points to a local, private or reserved address');
    throw badRequest('add_webhook_06', `The URL failed the registration check: ${hostname} does not resolve`);
  }
  const agent = safeAgent(allowPrivate, REGISTRATION_TIMEOUT_MS);
  try {
    const answer = await send(agent, url, { method: 'GET', timeoutMs: REGISTRATION_TIMEOUT_MS });
    // The name may resolve differently a moment later (DNS rebinding): the connection re-checks.
    if (answer.forbidden) throw badRequest('add_webhook_03', 'The URL points to a local, private or reserved address');
    // Only "timeout" or "no answer": the connection error itself (refused, reset, TLS…) would make this a port scanner.
    if (answer.status === null)
      throw badRequest(
        'add_webhook_06',
        `The URL failed the registration check: ${answer.error === 'timeout' ? 'no answer within 5 seconds' : 'the connection failed'}`,
      );
    if (answer.status === 404)
      throw badRequest('add_webhook_06', 'The URL failed the registration check: it answered 404');
  } finally {
    agent.close().catch(() => undefined);
  }
}

/**
 * Registers (or replaces) the account's webhook after the check. The save is
 * conditional on nothing having changed during the check, so a slow check
 * never overwrites a newer setting: add_webhook_08. An account archived
 * meanwhile gets nothing saved: add_webhook_07.
 */
export async function addWebhook(ctx: DbAndConfig, accountId: number, url: string, status: 0 | 1): Promise<void> {
  const before = await findWebhook(ctx.db.kysely, accountId);
  await checkRegistration(ctx, url);
  const outcome = await ctx.db.kysely
    .transaction()
    .execute((trx) => saveWebhook(trx, accountId, url, status, before?.version ?? null, ctx.db.engine === 'postgres'));
  if (outcome === 'account_closed') throw badRequest('add_webhook_07');
  if (outcome === 'changed_meanwhile') throw badRequest('add_webhook_08');
}

export async function changeStatus(ctx: WithDb, accountId: number, status: 0 | 1): Promise<void> {
  if (!(await setWebhookStatus(ctx.db.kysely, accountId, status))) throw badRequest('status_webhook_04');
}

/** Deleting also cancels the events still waiting for delivery, in the same transaction. */
export async function removeWebhook(ctx: WithDb, accountId: number): Promise<{ deleted: boolean; cancelled: number }> {
  return ctx.db.kysely.transaction().execute((trx) => deleteWebhook(trx, accountId));
}

/**
 * Sends an event again with a fresh round of retries (the `events redeliver`
 * command and the panel). Refused when the event is not the account's (when
 * one is given), when the account has no enabled webhook, and while the
 * event is pending.
 */
export async function redeliver(
  ctx: BaseContext,
  eventId: number,
  accountId?: number,
): Promise<{ id: number; reference: string }> {
  let query = ctx.db.kysely.selectFrom('events').select(['id', 'account_id', 'reference']).where('id', '=', eventId);
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  const event = await query.executeTakeFirst();
  if (!event) throw badRequest('no_such_event', `no event with id ${eventId}`);
  const hook = await findWebhook(ctx.db.kysely, event.account_id);
  if (!hook || hook.status !== 1) throw badRequest('test_event_needs_webhook', 'the account has no enabled webhook');
  if (!(await redeliverEvent(ctx.db.kysely, eventId)))
    throw badRequest('redeliver_pending', `event ${eventId} is already waiting for delivery`);
  return { id: Number(event.id), reference: event.reference };
}

// For front ends that hold the context (the panel's pages): the stores' reads and writes, given the context.

export const accountWebhook = (ctx: WithDb, accountId: number) => findWebhook(ctx.db.kysely, accountId);

/** The account's delivery log, newest first. */
export const deliveryLog = (
  ctx: WithDb,
  accountId: number,
  q: { limit: number; state?: EventState; type?: 'confirmation' | 'response' },
) => listEvents(ctx.db.kysely, accountId, { failedOnly: false, ...q });

export const revealWebhookSecret = (ctx: Pick<AppContext, 'db' | 'secrets'>, accountId: number) =>
  webhookSecret(ctx.db.kysely, ctx.secrets.webhookEncryption, accountId);

export const newWebhookSecret = (ctx: Pick<AppContext, 'db' | 'secrets'>, accountId: number) =>
  rotateWebhookSecret(ctx.db.kysely, ctx.secrets.webhookEncryption, accountId);

/**
 * Redelivers the account's failed events since a moment, one at a time through the same rule as a single
 * redelivery (an event picked up meanwhile is skipped); returns how many went back to the queue.
 */
export async function redeliverFailedSince(ctx: BaseContext, accountId: number, since: number): Promise<number> {
  let count = 0;
  for (const id of await failedEventIdsSince(ctx.db.kysely, accountId, since)) {
    count += await redeliver(ctx, id, accountId).then(
      () => 1,
      (err) => (err?.code === 'redeliver_pending' ? 0 : Promise.reject(err)),
    );
  }
  return count;
}

/**
 * A `confirmation` event with a reference starting `test-` and
 * extra_params {"test":true}, recorded and delivered like any other (same
 * signature, retries and log), so the receiver is tested end to end.
 */
export async function sendTestEvent(ctx: Pick<AppContext, 'db' | 'worker'>, accountId: number): Promise<void> {
  const hook = await findWebhook(ctx.db.kysely, accountId);
  if (!hook || hook.status !== 1) throw new ApiError(400, 'test_event_needs_webhook');
  const now = Date.now();
  const reference = `test-${now.toString(36)}`;
  await ctx.db.kysely.transaction().execute((trx) =>
    recordEvents(trx, [
      {
        accountId,
        type: 'confirmation',
        reference,
        payload: {
          type: 'confirmation',
          reference,
          status: '0',
          number: '520000000000',
          date: formatCompact(now),
          extra_params: '{"test":true}',
        },
      },
    ]),
  );
  ctx.worker.nudge();
}

/** Endpoints failing now, for the operator. */
export const failingWebhooks = (ctx: WithDb, now: number) => failingEndpoints(ctx.db.kysely, now);
