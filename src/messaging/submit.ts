import type { Insertable, Transaction } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import type { MessagesTable, MessageStatus } from './tables.js';
import { compiledOnce } from '../db/prepared.js';
import { debitCredits } from '../accounts/store.js';
import { ApiError } from '../http/errors.js';
import { defineMessages } from '../http/codes.js';
import { enqueue } from '../jobs/queue.js';
import { timeOrderedId } from '../lib/ids.js';
import { formatLocal } from '../lib/time.js';
import { pricesFor, type Priced } from './prices.js';
import type { PriceLookup } from './ports.js';
import type { Channel, MessageSource, SubmitRequest, SubmitResult } from './types.js';
import { DISPATCH_JOB, safetyNetKey } from './dispatch.js';
import { reserveSandboxQuota } from './sandbox.js';
import { acceptedBy } from './accepted-by.js';
import { OPTOUT_ERROR, OPTOUT_STATUS, optedOutAmong } from './optouts.js';
import { confirmationPayload } from './delivery.js';
import { recordEvents, recordLowBalance } from '../webhooks/index.js';

defineMessages({ sms_07: 'Insufficient credits: nothing was sent and nothing was charged' });

/** How long the dispatch job of an inline-dispatched request not inserted claimed (OTP) waits before it checks the messages itself. */
export const INLINE_SAFETY_NET_MS = 30_000;

/** Rows per INSERT: under SQLite's bound-parameter limit with every column. */
const CHUNK = 500;

// The statements of every send, compiled once (see compiledOnce).
const insertCampaign = compiledOnce(
  (
    db,
    accountId: number,
    name: string,
    channel: Channel,
    source: MessageSource,
    sandbox: number,
    total: number,
    scheduledAt: number | null,
    now: number,
    acceptedBy: string | null,
  ) =>
    db
      .insertInto('campaigns')
      .values({
        account_id: accountId,
        name,
        channel,
        source,
        sandbox,
        total,
        scheduled_at: scheduledAt,
        created_at: now,
        accepted_by: acceptedBy,
      })
      .returning('id'),
);
type MessageRow = Insertable<MessagesTable>;
const MESSAGE_COLUMNS = [
  'account_id',
  'campaign_id',
  'reference',
  'channel',
  'country_code',
  'number',
  'text',
  'sender',
  'flash',
  'sandbox',
  'extra_params',
  'meta',
  'price_units',
  'price_prefix',
  'credit_value',
  'stage',
  'status',
  'dlr_code',
  'carrier',
  'carrier_id',
  'error',
  'scheduled_at',
  'valid_until',
  'created_at',
  'sent_at',
  'dlr_at',
  'claimed_until',
  'claim_token',
] as const;
const insertOneMessage = compiledOnce((db, ...values: unknown[]) =>
  db
    .insertInto('messages')
    .values(Object.fromEntries(MESSAGE_COLUMNS.map((c, i) => [c, values[i]])) as unknown as MessageRow)
    .returning('id'),
);

/**
 * The one entry point of every outbound message (SMS, RCS, chat-app, voice,
 * OTP codes, payment links). Inside the caller's transaction it debits the
 * whole request, writes the campaign and one message per recipient, and
 * enqueues their dispatch: the request is accepted whole or not at all.
 * Throws ApiError sms_07 when the balance does not cover it (nothing written),
 * and 429 sms_17 when a sandbox request would pass the account's daily
 * sandbox limit (SANDBOX_DAILY_LIMIT, every channel counted together).
 * A recipient on the account's opt-out list (src/messaging/optouts.ts) is
 * recorded closed with status 10, not charged, never dispatched, and its
 * confirmation event (status 10) is written here; the others go out as usual.
 * After the transaction commits, call ctx.worker.nudge(DISPATCH_JOB) for
 * prompt dispatch, or with inlineDispatch hand the messages over yourself
 * (dispatchMessages, or ctx.handOff.add for shared rounds).
 */
export async function submitMessages(
  trx: Transaction<Database>,
  { config, prices }: { config: Config; prices: PriceLookup },
  req: SubmitRequest,
): Promise<SubmitResult> {
  const now = Date.now();
  const sandbox = req.sandbox === true;
  if (sandbox) await reserveSandboxQuota(trx, req.accountId, req.recipients.length, config.SANDBOX_DAILY_LIMIT, now);
  const priced = await pricesFor(
    trx,
    prices,
    req.accountId,
    req.channel,
    req.recipients.map((r) => r.number),
  );
  const price = (k: number): Priced =>
    req.priceUnits === undefined ? priced.prices[k] : { units: req.priceUnits, prefix: null };
  const creditValue = sandbox ? null : (priced.creditValue ?? config.CREDIT_VALUE);
  const blocked =
    sandbox || req.ignoreOptouts
      ? new Set<string>()
      : await optedOutAmong(
          trx,
          req.accountId,
          req.recipients.map((r) => r.number),
          req.source === 'otp',
        );
  let total = 0;
  if (!sandbox)
    for (let k = 0; k < req.recipients.length; k++) if (!blocked.has(req.recipients[k].number)) total += price(k).units;
  const debit = await debitCredits(trx, req.accountId, total);
  if (!debit) throw new ApiError(400, 'sms_07');
  if (debit.lowBalance) await recordLowBalance(trx, req.accountId);

  const scheduledAt = !sandbox && req.scheduledAt && req.scheduledAt > now ? req.scheduledAt : null;
  const name = req.campaignName || `${req.source.toUpperCase()} ${formatLocal(now)}`;
  const { rows: inserted } = await insertCampaign(
    trx,
    req.accountId,
    name,
    req.channel,
    req.source,
    sandbox ? 1 : 0,
    req.recipients.length,
    scheduledAt,
    now,
    acceptedBy(),
  );
  const campaign = inserted[0];

  const meta = req.meta ? JSON.stringify(req.meta) : null;
  const inline = req.inlineDispatch === true && !scheduledAt;
  const rows = req.recipients.map((r, k) => ({
    ...sendable(sandbox, scheduledAt, price(k).units),
    ...(blocked.has(r.number) ? optedOut(now) : {}),
    account_id: req.accountId,
    campaign_id: campaign.id,
    reference: r.reference ?? timeOrderedId(),
    channel: req.channel,
    country_code: r.countryCode,
    number: r.number,
    text: r.text ?? req.text,
    sender: req.sender ?? null,
    flash: req.flash ? 1 : 0,
    sandbox: sandbox ? 1 : 0,
    extra_params: req.extraParams ?? null,
    meta,
    price_prefix: price(k).prefix,
    credit_value: creditValue,
    carrier: null,
    carrier_id: null,
    scheduled_at: scheduledAt,
    valid_until: req.validUntil ?? null,
    created_at: now,
    sent_at: null,
    // An opted-out message is closed at once: no claim, so it never enters the unsent sweep's index.
    claimed_until: inline && !blocked.has(r.number) ? (req.claimedBy?.until ?? null) : null,
    claim_token: inline && !blocked.has(r.number) ? (req.claimedBy?.token ?? null) : null,
  }));
  const messageIds: number[] = [];
  if (rows.length === 1)
    messageIds.push((await insertOneMessage(trx, ...MESSAGE_COLUMNS.map((c) => rows[0][c]))).rows[0].id);
  else
    for (let i = 0; i < rows.length; i += CHUNK) {
      const ids = await trx
        .insertInto('messages')
        .values(rows.slice(i, i + CHUNK))
        .returning('id')
        .execute();
      for (const { id } of ids) messageIds.push(id);
    }
  if (blocked.size > 0)
    await recordEvents(
      trx,
      rows.filter((r) => r.stage === 2).map((r) => confirmationPayload(r, OPTOUT_STATUS, now)),
    );
  // A send inserted already claimed by the inline hand-off queues no job: the unsent sweep (sweep.ts) is its
  // safety net. Other inline sends (OTP) keep a dispatch job as theirs, due by the end of their validity at the latest.
  const safetyNet = Math.min(now + INLINE_SAFETY_NET_MS, req.validUntil ?? Infinity);
  const dispatchAt = scheduledAt ?? (inline ? safetyNet : now);
  // A validity end keeps the job, due then: a message still unsent is closed as expired at that end, not a sweep later.
  const swept = inline && req.claimedBy !== undefined && req.validUntil == null;
  if (!sandbox && !swept && blocked.size < rows.length)
    await enqueue(
      trx,
      DISPATCH_JOB,
      { campaignId: campaign.id },
      { runAt: dispatchAt, maxAttempts: 20, uniqueKey: inline ? safetyNetKey(campaign.id) : undefined },
    );
  return {
    campaignId: campaign.id,
    references: rows.map((r) => ({ reference: r.reference, number: r.number })),
    messageIds,
    creditUnits: total,
    optedOut: [...blocked],
  };
}

/** A message's price and state as it is accepted. */
function sendable(sandbox: boolean, scheduledAt: number | null, unit: number) {
  return {
    price_units: sandbox ? 0 : unit,
    stage: sandbox ? 2 : 0,
    status: sandbox ? ('sandbox' as MessageStatus) : scheduledAt ? ('scheduled' as const) : ('queued' as const),
    dlr_code: null as number | null,
    error: null as string | null,
    dlr_at: null as number | null,
  };
}

/** …and, to an opted-out number, closed at once: never charged, never handed over. */
function optedOut(now: number) {
  return {
    price_units: 0,
    stage: 2,
    status: 'refused' as MessageStatus,
    dlr_code: OPTOUT_STATUS,
    error: OPTOUT_ERROR,
    dlr_at: now,
  };
}
