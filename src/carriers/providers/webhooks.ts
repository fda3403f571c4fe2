import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { randomToken } from '../../lib/ids.js';
import { applyDeliveryReports } from '../../messaging/delivery.js';
import { recordRejection } from './store.js';

defineMessages({
  provider_01: 'No such provider connector',
  provider_02: 'The request signature is missing or wrong',
  provider_03: 'The verify token does not match',
  provider_04: 'The webhook body is unreadable',
});

/** Constant-time equality of two strings (signatures, tokens). */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Refuses a provider's request: recorded (provider_rejections, log) and answered in the spec's envelope. */
export async function refuse(ctx: AppContext, request: FastifyRequest, carrier: string, status: number, code: string, reason: string): Promise<never> {
  await recordRejection(ctx, carrier, reason, request.ip);
  throw new ApiError(status, code);
}

/** The provider's status reports: applied once per message (applyDeliveryReports keeps the first final status), and a read recorded. */
export async function applyProviderStatuses(ctx: AppContext, reports: Array<{ messageId: number; code: number; at: number; read?: boolean }>): Promise<number> {
  const applied = await applyDeliveryReports(ctx, reports);
  for (const r of reports.filter((x) => x.read)) await recordProviderRead(ctx, r.messageId, r.at);
  return applied;
}

/**
 * A read the provider reported (WhatsApp blue ticks): counted once per
 * message on its read-tracking row, created without a link when the send
 * asked for no read confirmation. A marker row (provider_message_ids,
 * carrier "#read") taken in the same transaction makes a redelivered
 * webhook, or a waiting status applied by two processes at once, count once.
 */
async function recordProviderRead(ctx: AppContext, messageId: number, at: number): Promise<void> {
  await ctx.db.kysely.transaction().execute(async (trx) => {
    const first = await trx
      .insertInto('provider_message_ids')
      .values({ carrier: '#read', carrier_id: String(messageId), message_id: messageId, created_at: at })
      .onConflict((oc) => oc.columns(['carrier', 'carrier_id']).doNothing())
      .executeTakeFirst();
    if (Number(first.numInsertedOrUpdatedRows ?? 0n) === 0) return;
    const updated = await trx
      .updateTable('read_trackings')
      .set((eb) => ({ reads: eb('reads', '+', 1), last_read_at: at, first_read_at: eb.fn.coalesce('first_read_at', eb.val(at)) }))
      .where('message_id', '=', messageId)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) > 0) return;
    const m = await trx.selectFrom('messages').select('account_id').where('id', '=', messageId).executeTakeFirst();
    if (!m) return;
    await trx
      .insertInto('read_trackings')
      .values({ token: randomToken(9), account_id: m.account_id, message_id: messageId, url: '', contact_id: null, created_at: at, reads: 1, first_read_at: at, last_read_at: at })
      .execute();
  });
}

/** Routes of one provider that need the raw body (signatures are over the bytes as sent). */
export function rawJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
}
