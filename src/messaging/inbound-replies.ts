import type { DbAndConfig, WithDb } from '../context.js';
import { recordReply } from './replies.js';
import type { SendContext } from './send.js';
import { findRoute, firstWord, recordRoutedReply, routeNumber } from './routed-replies.js';

/** A customer's message that came in through a connector: an SMPP deliver_sm, a provider's webhook. */
export interface InboundReply {
  /** The connector it came through. */
  carrier: string;
  /** The customer's number (digits), and our address it was sent to (sender, Cloud API phone-number id). */
  source: string;
  destination: string;
  text: string;
  at: number;
  /** The provider's id of the message it answers, when the provider names one (WhatsApp's `context.id`). */
  quoted?: string;
  /** The accounts our address belongs to: a bound chat-app instance's account, the accounts that registered the SMS sender. */
  owners: number[];
}

interface Match {
  accountId: number;
  messageId: number;
}

const latestTo = (ctx: WithDb, number: string) =>
  ctx.db.kysely
    .selectFrom('messages')
    .select(['id', 'account_id'])
    .where('number', '=', number)
    .where('sandbox', '=', 0)
    .orderBy('id', 'desc')
    .limit(1);

const asMatch = (row: { id: number; account_id: number } | undefined): Match | undefined =>
  row ? { accountId: Number(row.account_id), messageId: Number(row.id) } : undefined;

/** The message the provider says the customer answers, if this connector sent it to that number. */
async function quotedMessage(ctx: WithDb, r: InboundReply): Promise<Match | undefined> {
  if (!r.quoted) return undefined;
  const row = await ctx.db.kysely
    .selectFrom('provider_message_ids as p')
    .innerJoin('messages as m', 'm.id', 'p.message_id')
    .select(['m.id', 'm.account_id'])
    .where('p.carrier', '=', r.carrier)
    .where('p.carrier_id', '=', r.quoted)
    .where('m.number', '=', r.source)
    .where('m.sandbox', '=', 0)
    .executeTakeFirst();
  return asMatch(row);
}

async function ownersLatest(ctx: WithDb, r: InboundReply): Promise<Match | undefined> {
  if (r.owners.length === 0) return undefined;
  return asMatch(await latestTo(ctx, r.source).where('account_id', 'in', r.owners).executeTakeFirst());
}

/** The latest message to that number through this connector, sent (or, not yet sent, created) within REPLY_MATCH_WINDOW_HOURS. */
async function latestInWindow(ctx: DbAndConfig, r: InboundReply): Promise<Match | undefined> {
  const since = r.at - ctx.config.REPLY_MATCH_WINDOW_HOURS * 3_600_000;
  const row = await latestTo(ctx, r.source)
    .where('carrier', '=', r.carrier)
    .where((eb) => eb(eb.fn.coalesce('sent_at', 'created_at'), '>=', since))
    .executeTakeFirst();
  return asMatch(row);
}

/**
 * The sent message a reply answers, by one rule for every channel: the
 * message the provider says it quotes; else the latest message to that
 * number from an account our address belongs to; else the latest message to
 * that number through this connector within REPLY_MATCH_WINDOW_HOURS. So a
 * shared number or sender never hands one tenant's customer to another
 * tenant that happened to write to the same number later, elsewhere or long ago.
 */
export async function matchReply(ctx: DbAndConfig, r: InboundReply): Promise<Match | undefined> {
  return (await quotedMessage(ctx, r)) ?? (await ownersLatest(ctx, r)) ?? (await latestInWindow(ctx, r));
}

/**
 * Records a customer reply against the message it answers (the `response`
 * event, as with the simulator); one that answers nothing goes to the account
 * of the most specific MO route for our number and its first word
 * (routed-replies.ts); with no route it is kept in unmatched_replies
 * (`carriers replies --unmatched`), never given to an account.
 */
export async function recordInboundReply(
  ctx: SendContext,
  r: InboundReply,
): Promise<'matched' | 'routed' | 'unmatched'> {
  const match = await matchReply(ctx, r);
  const destination = routeNumber(r.destination);
  const reply = { number: r.source, text: r.text, at: r.at, destination };
  if (match && (await recordReply(ctx, { ...match, ...reply }))) {
    ctx.worker.nudge();
    return 'matched';
  }
  const route = await findRoute(ctx.db.kysely, { number: destination, keyword: firstWord(r.text) });
  if (route) {
    await recordRoutedReply(ctx, route, r);
    ctx.worker.nudge();
    return 'routed';
  }
  await ctx.db.kysely
    .insertInto('unmatched_replies')
    .values({ carrier: r.carrier, source: r.source, destination: r.destination, text: r.text, received_at: r.at })
    .execute();
  return 'unmatched';
}
