import type { Transaction } from 'kysely';
import type { Executor } from '../db/engine.js';
import type { Database } from '../db/schema.js';
import type { Channel } from './types.js';
import { recordEvents } from '../webhooks/index.js';
import { formatCompact } from '../lib/time.js';
import { addOptouts, listOwner, optoutKeyword, optoutSettings, removeOptouts } from './optouts.js';
import { writeSend, type SendContext } from './send.js';
import { queueReply } from './customer-notices.js';

type Original = {
  id: number;
  account_id: number;
  reference: string;
  channel: string;
  number: string;
  country_code: string;
  text: string;
  sender: string | null;
  meta: string | null;
  sent_at: number | null;
  created_at: number;
};

/**
 * A customer's reply to a message the account sent that number (`messageId`,
 * or by default the latest; only among those `carrier` took, when given): stored, with its `response` event, in one
 * transaction. An opt-out keyword in it changes the account's opt-out list in
 * that same transaction (and its confirmation text, if any, is sent). Returns
 * the original message's reference, or null when the account never sent that
 * message to that number.
 */
export async function recordReply(
  ctx: SendContext,
  input: {
    accountId: number;
    number: string;
    text: string;
    at: number;
    messageId?: number;
    carrier?: string;
    /** The number it was sent to, when known. */
    destination?: string;
  },
): Promise<string | null> {
  return ctx.db.kysely.transaction().execute(async (trx) => {
    const original = await trx
      .selectFrom('messages')
      .select([
        'id',
        'account_id',
        'reference',
        'channel',
        'number',
        'country_code',
        'text',
        'sender',
        'meta',
        'sent_at',
        'created_at',
      ])
      .where('account_id', '=', input.accountId)
      .where('number', '=', input.number)
      .where('sandbox', '=', 0)
      .$if(input.messageId !== undefined, (q) => q.where('id', '=', input.messageId!))
      .$if(input.carrier !== undefined, (q) => q.where('carrier', '=', input.carrier!))
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!original) return null;
    await trx
      .insertInto('replies')
      .values({
        account_id: input.accountId,
        message_id: original.id,
        number: input.number,
        text: input.text,
        received_at: input.at,
        destination: input.destination || null,
      })
      .execute();
    await recordEvents(trx, [
      {
        accountId: input.accountId,
        type: 'response',
        reference: original.reference,
        payload: {
          type: 'response',
          reference: original.reference,
          number: original.number,
          message: original.text,
          response: input.text,
          send_date: formatCompact(original.sent_at ?? original.created_at),
          response_date: formatCompact(input.at),
        },
      },
    ]);
    // Customers bound over SMPP also get the reply as a deliver_sm, kept with its event.
    await queueReply(trx, {
      accountId: input.accountId,
      number: original.number,
      sender: original.sender,
      meta: original.meta,
      text: input.text,
    });
    await applyKeyword(trx, ctx, original, input.text, input.at);
    return original.reference;
  });
}

/**
 * The latest message (not sandbox) the account sent that number, when it is
 * still waiting for its hand-off (queued, no carrier yet): which connector
 * takes it is up to its route.
 */
export async function latestWaiting(
  db: Executor,
  accountId: number,
  number: string,
): Promise<{ id: number; channel: Channel; number: string; meta: Record<string, unknown> | null } | undefined> {
  const row = await db
    .selectFrom('messages')
    .select(['id', 'channel', 'number', 'meta', 'stage', 'status', 'carrier'])
    .where('account_id', '=', accountId)
    .where('number', '=', number)
    .where('sandbox', '=', 0)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row || Number(row.stage) !== 0 || row.status !== 'queued' || row.carrier !== null) return undefined;
  const meta = row.meta ? (JSON.parse(row.meta) as Record<string, unknown>) : null;
  return { id: Number(row.id), channel: row.channel, number: row.number, meta };
}

/** A number gets the opt-out confirmation text at most once in this period, however often it opts out and back in. */
export const CONFIRMATION_PERIOD_MS = 24 * 3_600_000;

const CONFIRMATION_CAMPAIGN = 'Opt-out confirmation';

/** Whether the family of `owner` sent `number` its opt-out confirmation (free, in its own campaign) since `since`. */
async function confirmedSince(trx: Transaction<Database>, owner: number, number: string, since: number) {
  const row = await trx
    .selectFrom('messages as m')
    .innerJoin('campaigns as c', 'c.id', 'm.campaign_id')
    .select('m.id')
    .where('m.number', '=', number)
    .where('m.created_at', '>=', since)
    .where('m.price_units', '=', 0)
    .where('c.name', '=', CONFIRMATION_CAMPAIGN)
    .where('m.account_id', 'in', (eb) =>
      eb
        .selectFrom('accounts')
        .select('id')
        .where((w) => w.or([w('id', '=', owner), w('parent_id', '=', owner)])),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * STOP-like words put the number on the list of the account that sent the
 * replied message (its top-level account's list); START-like words take it
 * off. A number newly put on the list gets the account's confirmation text,
 * free of charge, at most once per CONFIRMATION_PERIOD_MS (an opt-out, ALTA,
 * opt-out again within a day is confirmed once), on the channel and from the sender of the replied
 * message (not by voice: a call is not a confirmation).
 */
async function applyKeyword(
  trx: Transaction<Database>,
  ctx: SendContext,
  original: Original,
  text: string,
  at: number,
) {
  const keyword = optoutKeyword(text);
  if (!keyword) return;
  const owner = await listOwner(trx, original.account_id);
  if (keyword === 'start') {
    await removeOptouts(trx, owner, [original.number]);
    return;
  }
  const added = await addOptouts(trx, owner, [original.number], 'keyword', at);
  if (added.length === 0) return;
  const { confirmation } = await optoutSettings(trx, owner);
  if (!confirmation || original.channel === 'voice') return;
  if (await confirmedSince(trx, owner, original.number, at - CONFIRMATION_PERIOD_MS)) return;
  const chatapp = original.channel === 'chatapp';
  const meta = original.meta ? (JSON.parse(original.meta) as Record<string, unknown>) : {};
  // Queued: the dispatch lanes poll for it (this runs inside the transaction of the reply, which wakes no lane).
  await writeSend(
    trx,
    ctx,
    [
      {
        accountId: original.account_id,
        channel: chatapp ? 'chatapp' : 'sms',
        source: chatapp ? 'chatapp' : 'sms',
        recipients: [{ countryCode: original.country_code, number: original.number }],
        text: confirmation,
        campaignName: CONFIRMATION_CAMPAIGN,
        sender: original.sender,
        meta: chatapp ? { instance_id: meta.instance_id, type: 'text' } : null,
        priceUnits: 0,
        ignoreOptouts: true,
        trafficClass: 'transactional',
      },
    ],
    'queued',
  );
}
