import type { DbAndConfig, WithDb } from '../context.js';
import type { Executor } from '../db/engine.js';
import { recordReply } from './replies.js';
import type { SendContext } from './send.js';
import { findRoute, firstWord, isRoutedNumber, recordRoutedReply, routeNumber } from './routed-replies.js';

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

/**
 * The latest message to that number through this connector, sent (or, not
 * yet sent, created) within REPLY_MATCH_WINDOW_HOURS; only `accountId`'s when given.
 */
async function latestInWindow(ctx: DbAndConfig, r: InboundReply, accountId?: number): Promise<Match | undefined> {
  const since = r.at - ctx.config.REPLY_MATCH_WINDOW_HOURS * 3_600_000;
  const row = await latestTo(ctx, r.source)
    .where('carrier', '=', r.carrier)
    .where((eb) => eb(eb.fn.coalesce('sent_at', 'created_at'), '>=', since))
    .$if(accountId !== undefined, (q) => q.where('account_id', '=', accountId!))
    .executeTakeFirst();
  return asMatch(row);
}

/** Who gets a reply: the message it answers, else the account it is given to without one (`routeId` null: as the address's owner). */
type Taker = { match: Match } | { loose: { accountId: number; routeId: number | null } } | null;

/**
 * Who a reply belongs to, by one rule for every channel:
 *
 * 1. the message the provider says it quotes;
 * 2. else the latest message to that number from an account our address
 *    belongs to (its registered sender, a bound chat-app instance);
 * 3. an address that an account owns (2) or routes (an MO route naming the
 *    number) is that account's, whatever else went through the connector:
 *    the most specific MO route naming it, for the first word, gives the reply to
 *    its account (to that account's latest message through this connector
 *    within REPLY_MATCH_WINDOW_HOURS, when there is one); with no route, the
 *    address's one owner gets it (several owners, or none: unmatched);
 * 4. an address nobody owns or routes (a shared connector number): the
 *    latest message to that number through this connector within
 *    REPLY_MATCH_WINDOW_HOURS, else the most specific MO route for the first
 *    word (keyword routes), else unmatched.
 *
 * So a shared number or sender never hands one tenant's customer to another
 * tenant that happened to write to the same number later, elsewhere or long
 * ago, and a reply (a STOP) to one tenant's own short code or number never
 * reaches another tenant that wrote to that customer through the same connector.
 */
async function replyTaker(ctx: DbAndConfig, r: InboundReply): Promise<Taker> {
  const known = (await quotedMessage(ctx, r)) ?? (await ownersLatest(ctx, r));
  if (known) return { match: known };
  const destination = routeNumber(r.destination);
  const claimed = r.owners.length > 0 || (await isRoutedNumber(ctx.db.kysely, destination));
  const keyword = firstWord(r.text);
  const route = await findRoute(ctx.db.kysely, { number: destination, keyword, numbered: claimed });
  const latest = claimed ? route && (await latestInWindow(ctx, r, route.accountId)) : await latestInWindow(ctx, r);
  if (latest) return { match: latest };
  if (route) return { loose: route };
  const owners = [...new Set(r.owners)];
  return claimed && owners.length === 1 ? { loose: { accountId: owners[0], routeId: null } } : null;
}

/** The message a reply answers by that rule (replyTaker), if any. */
export async function matchReply(ctx: DbAndConfig, r: InboundReply): Promise<Match | undefined> {
  const taker = await replyTaker(ctx, r);
  return taker && 'match' in taker ? taker.match : undefined;
}

/**
 * Records a customer reply for the account the reply rule gives it to
 * (replyTaker): against the message it answers (the `response` event, as
 * with the simulator), or, answering none, as a reply the MO route (or the
 * address's owner) gives the account (routed-replies.ts); one nobody takes
 * is kept in unmatched_replies (`carriers replies --unmatched`), never given
 * to an account.
 */
export async function recordInboundReply(
  ctx: SendContext,
  r: InboundReply,
): Promise<'matched' | 'routed' | 'unmatched'> {
  const taker = await replyTaker(ctx, r);
  const destination = routeNumber(r.destination);
  const reply = { number: r.source, text: r.text, at: r.at, destination };
  if (taker && 'match' in taker && (await recordReply(ctx, { ...taker.match, ...reply }))) {
    ctx.worker.nudge();
    return 'matched';
  }
  if (taker && 'loose' in taker) {
    await recordRoutedReply(ctx, taker.loose, r);
    ctx.worker.nudge();
    return 'routed';
  }
  await ctx.db.kysely
    .insertInto('unmatched_replies')
    .values({ carrier: r.carrier, source: r.source, destination: r.destination, text: r.text, received_at: r.at })
    .execute();
  return 'unmatched';
}

/**
 * Housekeeping: unmatched replies older than `keepDays`, and all but the
 * newest `keepRows` (a carrier's flood of deliver_sm to an address nobody
 * owns or routes leaves at most that many rows between two runs' worth).
 */
export async function pruneUnmatchedReplies(
  db: Executor,
  now: number,
  keep: { keepDays: number; keepRows: number },
): Promise<number> {
  const old = await db
    .deleteFrom('unmatched_replies')
    .where('received_at', '<', now - keep.keepDays * 86_400_000)
    .executeTakeFirst();
  // The oldest row kept by the cap, found through the primary key: everything older goes.
  const edge = await db
    .selectFrom('unmatched_replies')
    .select('id')
    .orderBy('id', 'desc')
    .limit(1)
    .offset(keep.keepRows - 1)
    .executeTakeFirst();
  const over = edge
    ? await db.deleteFrom('unmatched_replies').where('id', '<', edge.id).executeTakeFirst()
    : { numDeletedRows: 0n };
  return Number(old.numDeletedRows) + Number(over.numDeletedRows);
}
