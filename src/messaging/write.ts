import type { Transaction } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import type { MessageStatus } from './tables.js';
import { insertCampaigns, insertMessages } from './write-rows.js';
import { debitCredits } from '../accounts/store.js';
import { enqueue } from '../jobs/queue.js';
import { timeOrderedId } from '../lib/ids.js';
import { formatLocal } from '../lib/time.js';
import { pricesFor } from './prices.js';
import type { PriceLookup } from './ports.js';
import type { Channel, InlineClaim, Recipient, SendRequest, SendResult } from './types.js';
import { DISPATCH_JOB, safetyNetKey } from './dispatch.js';
import { reserveSandboxQuota } from './sandbox.js';
import { acceptedBy } from './accepted-by.js';
import { blockedAmong, OPTOUT_STATUS } from './optouts.js';
import { confirmationPayload } from './delivery.js';
import { queueReceipts } from './customer-notices.js';
import { recordEvents, recordLowBalance } from '../webhooks/index.js';
import { smsParts } from '../smpp-protocol/encoding.js';
import type { FamilyTraffic } from './pricing.js';
import { classOf, validityOf } from './traffic.js';
import { Refusal } from './refusal.js';
import { countSpend } from './spend.js';
import { countDestinations } from './destination-caps.js';

/** How long the dispatch job of a send handed over by this process and with a validity end waits before it checks the messages itself. */
export const INLINE_SAFETY_NET_MS = 30_000;

/**
 * writeMessageBatch for one request. Features send through send.ts, which
 * also hands the messages over; this is the writer alone (tests, benches).
 */
export async function writeMessages(
  trx: Transaction<Database>,
  deps: { config: Config; prices: PriceLookup },
  req: SendRequest,
  claim?: InlineClaim,
): Promise<SendResult> {
  return (await writeMessageBatch(trx, deps, [req], [claim]))[0];
}

/**
 * What every outbound message (SMS, RCS, chat-app, voice, OTP codes, payment
 * links) is written by, through the one send call (send.ts). Inside the
 * caller's transaction it debits several requests of one account, channel and
 * source at once (the submit_sm of one turn of an SMPP bind), writes each
 * request's campaign and one message per recipient, and enqueues their
 * dispatch: they share one price lookup, one opt-out and do-not-contact query,
 * one debit and the message INSERTs, and are accepted all or none.
 * Throws Refusal insufficient_credits when the balance does not cover them
 * (nothing written; the caller may then submit them one by one to learn which
 * fit), and sandbox_limit when a sandbox request would pass the account's daily
 * sandbox limit (SANDBOX_DAILY_LIMIT, every channel counted together), and destination_cap when a request with
 * destination caps would pass one (destination-caps.ts).
 * A recipient on the account's opt-out list or on the deployment's
 * do-not-contact list (src/messaging/optouts.ts) is recorded closed with
 * status 10, not charged, never dispatched, and its confirmation event
 * (status 10) and SMPP receipt are written here; the others go out as usual.
 * `claims[i]`, when given, is the claim of the hand-off of this process that
 * submits request i's messages right after the commit (send.ts): they are
 * inserted already claimed by it, and queue no dispatch job unless they have
 * a validity end (the unsent sweep is their safety net).
 */
export async function writeMessageBatch(
  trx: Transaction<Database>,
  deps: { config: Config; prices: PriceLookup },
  reqs: SendRequest[],
  claims: Array<InlineClaim | undefined> = [],
): Promise<SendResult[]> {
  const first = reqs[0];
  if (reqs.length > 1 && reqs.some((r) => batchKey(r) !== batchKey(first)))
    throw new Error('a batch of sends shares its account, channel, source, sandbox and opt-out rule');
  const now = Date.now();
  const batch = await priceBatch(trx, deps, reqs, now);
  const charges = batch.sends.map(({ recipients }) =>
    batch.sandbox ? 0 : recipients.reduce((n, r) => n + (r.blocked === undefined ? r.price.units : 0), 0),
  );
  const total = charges.reduce((a, b) => a + b, 0);
  // Refused before anything is written when the balance read with the prices cannot cover it; the debit decides.
  if (total > batch.credits) throw new Refusal('insufficient_credits');
  const campaigns = await insertCampaigns(
    trx,
    batch.sends.map(({ req, recipients }) => [
      first.accountId,
      req.campaignName || `${req.source.toUpperCase()} ${formatLocal(now)}`,
      first.channel,
      req.source,
      batch.sandbox ? 1 : 0,
      recipients.length,
      scheduledFor(req, now),
      now,
      acceptedBy(),
    ]),
  );
  const rows = messageRows(batch, campaigns, claims, now);
  const ids = await insertMessages(trx, rows.flat());
  if (batch.blocked) await tellHeldBack(trx, first.accountId, rows.flat(), ids, now);
  const results = await queueDispatch(trx, batch, campaigns, rows, ids, claims, now);
  if (!batch.sandbox) await countDestinations(trx, batch.sends, now, (req) => scheduledFor(req, now));
  // The debit comes last (then only its ledger entries, which keep the balance it left): on PostgreSQL it locks the
  // account's row until COMMIT, so the account's sends in other processes wait for this transaction's commit only, not
  // for its writes too. Refused, it rolls them back.
  const parts = charges.map((units, i) => ({
    units,
    movement: { kind: 'send' as const, actor: 'account', reference: `campaign:${results[i].campaignId}` },
  }));
  const debit = await debitCredits(trx, first.accountId, total, parts);
  if (!debit) throw new Refusal('insufficient_credits');
  // The family's spend of the day, after the debit for the same reason (its row is shared by the family); past the
  // family's daily limit it refuses, rolling everything back.
  await countSpend(trx, deps.config, first.accountId, charges, now);
  if (debit.lowBalance) await recordLowBalance(trx, first.accountId, charges);
  return results;
}

interface PricedRecipient extends Recipient {
  price: { units: number; prefix: string | null };
  /** The error recorded for a recipient not sent to (opt-out, do-not-contact), else undefined. */
  blocked: string | undefined;
}

interface PricedBatch {
  sandbox: boolean;
  /** The family's pinned class and default validity. */
  traffic: FamilyTraffic;
  creditValue: number | null;
  /** The account's balance read with its prices, in units. */
  credits: number;
  /** Whether any recipient is held back (opt-out, do-not-contact). */
  blocked: boolean;
  sends: Array<{ req: SendRequest; recipients: PricedRecipient[] }>;
}

/**
 * The sandbox quota, then each request's recipients with their price (recipient k of the batch is priced.prices[k],
 * times its parts) and whether the opt-out or do-not-contact list holds them back: one lookup of each for the batch.
 */
async function priceBatch(
  trx: Transaction<Database>,
  { config, prices }: { config: Config; prices: PriceLookup },
  reqs: SendRequest[],
  now: number,
): Promise<PricedBatch> {
  const { accountId, channel } = reqs[0];
  const sandbox = reqs[0].sandbox === true;
  const numbers = reqs.flatMap((r) => r.recipients.map((x) => x.number));
  if (sandbox) await reserveSandboxQuota(trx, accountId, numbers.length, config.SANDBOX_DAILY_LIMIT, now);
  const priced = await pricesFor(trx, prices, accountId, channel, numbers);
  const blocked =
    sandbox || reqs[0].ignoreOptouts
      ? new Map<string, string>()
      : await blockedAmong(trx, accountId, numbers, reqs[0].source === 'otp' && reqs[0].standardOtpText === true);
  const partsOf = partsCounter(channel);
  let k = 0;
  const sends = reqs.map((req) => ({
    req,
    recipients: req.recipients.map((r) => {
      const one = req.priceUnits === undefined ? priced.prices[k] : { units: req.priceUnits, prefix: null };
      k++;
      const price = { ...one, units: one.units * partsOf(r.text ?? req.text, req.flash === true) };
      return { ...r, price, blocked: blocked.get(r.number) };
    }),
  }));
  const creditValue = sandbox ? null : (priced.creditValue ?? config.CREDIT_VALUE);
  return { sandbox, traffic: priced.traffic, creditValue, credits: priced.credits, blocked: blocked.size > 0, sends };
}

type MessageRow = ReturnType<typeof messageRows>[number][number];

/** Each request's message rows, in recipient order; a held-back recipient's closed at once, with no claim. */
function messageRows(
  { sandbox, traffic, creditValue, sends }: PricedBatch,
  campaigns: number[],
  claims: Array<InlineClaim | undefined>,
  now: number,
) {
  return sends.map(({ req, recipients }, i) => {
    const scheduledAt = scheduledFor(req, now);
    const meta = req.meta ? JSON.stringify(req.meta) : null;
    const claim = scheduledAt ? undefined : claims[i];
    const trafficClass = classOf(req, traffic.pinned, scheduledAt !== null);
    const validUntil = validityOf(req, traffic.validityMinutes, scheduledAt ?? now);
    return recipients.map((r) => ({
      ...sendable(sandbox, scheduledAt, r.price.units),
      ...(r.blocked !== undefined ? optedOut(now, r.blocked) : {}),
      account_id: req.accountId,
      campaign_id: campaigns[i],
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
      price_prefix: r.price.prefix,
      credit_value: creditValue,
      carrier: null,
      carrier_id: null,
      scheduled_at: scheduledAt,
      valid_until: validUntil,
      traffic_class: trafficClass,
      created_at: now,
      sent_at: null,
      // An opted-out message is closed at once: no claim, so it never enters the unsent sweep's index.
      claimed_until: claim && r.blocked === undefined ? claim.until : null,
      claim_token: claim && r.blocked === undefined ? claim.token : null,
    }));
  });
}

/** The confirmation event (status 10) of each held-back recipient, and the SMPP receipt its customer asked for. */
async function tellHeldBack(
  trx: Transaction<Database>,
  accountId: number,
  rows: MessageRow[],
  ids: Map<string, number>,
  now: number,
): Promise<void> {
  const closed = rows.filter((r) => r.dlr_code === OPTOUT_STATUS);
  await recordEvents(
    trx,
    closed.map((r) => confirmationPayload(r, OPTOUT_STATUS, now)),
  );
  // An SMPP customer that asked for receipts gets this one too (REJECTD), as for any final state.
  await queueReceipts(
    trx,
    closed.map((r) => ({
      id: ids.get(r.reference)!,
      account_id: accountId,
      meta: r.meta,
      code: OPTOUT_STATUS,
      at: now,
    })),
  );
}

/**
 * Each request's dispatch job, and its answer. A send inserted already claimed by a hand-off of this process queues
 * no job: the unsent sweep (sweep.ts) is its safety net. With a validity end it keeps a dispatch job, due by that end
 * at the latest: a message still unsent is closed as expired at that end, not a sweep later.
 */
async function queueDispatch(
  trx: Transaction<Database>,
  { sandbox, sends }: PricedBatch,
  campaigns: number[],
  rows: MessageRow[][],
  ids: Map<string, number>,
  claims: Array<InlineClaim | undefined>,
  now: number,
): Promise<SendResult[]> {
  const results: SendResult[] = [];
  for (let i = 0; i < sends.length; i++) {
    const { req, recipients } = sends[i];
    const scheduledAt = scheduledFor(req, now);
    const inline = !scheduledAt && claims[i] !== undefined;
    const validUntil = rows[i][0]?.valid_until ?? null;
    const safetyNet = Math.min(now + INLINE_SAFETY_NET_MS, validUntil ?? Infinity);
    const dispatchAt = scheduledAt ?? (inline ? safetyNet : now);
    const swept = inline && validUntil === null;
    if (!sandbox && !swept && recipients.some((r) => r.blocked === undefined))
      await enqueue(
        trx,
        DISPATCH_JOB,
        { campaignId: campaigns[i] },
        { runAt: dispatchAt, maxAttempts: 20, uniqueKey: inline ? safetyNetKey(campaigns[i]) : undefined },
      );
    results.push({
      campaignId: campaigns[i],
      references: rows[i].map((r) => ({ reference: r.reference, number: r.number })),
      messageIds: rows[i].map((r) => ids.get(r.reference)!),
      creditUnits: sandbox ? 0 : recipients.reduce((sum, r) => sum + (r.blocked !== undefined ? 0 : r.price.units), 0),
      optedOut: [...new Set(recipients.filter((r) => r.blocked !== undefined).map((r) => r.number))],
    });
  }
  return results;
}

/**
 * The parts of a message on `channel`: an SMS as many as the carrier
 * connector sends it in (smsParts), any other message one. Remembers each
 * text of the batch, which is most often one text for every recipient.
 */
function partsCounter(channel: Channel): (text: string, flash: boolean) => number {
  if (channel !== 'sms') return () => 1;
  const known = new Map<string, number>();
  return (text, flash) => {
    const key = `${flash ? 1 : 0}${text}`;
    let parts = known.get(key);
    if (parts === undefined) known.set(key, (parts = smsParts(text, flash)));
    return parts;
  };
}

/** When a send waits to be dispatched: a future schedule of a request that is not a sandbox one, else null (now). */
const scheduledFor = (req: SendRequest, now: number) =>
  req.sandbox !== true && req.scheduledAt && req.scheduledAt > now ? req.scheduledAt : null;

/** What the requests of one writeMessageBatch share: requests with equal keys may be written together. */
export const batchKey = (r: SendRequest): string =>
  JSON.stringify([
    r.accountId,
    r.channel,
    r.source,
    r.sandbox === true,
    r.ignoreOptouts === true,
    r.standardOtpText === true,
  ]);

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

/** …and, to an opted-out or do-not-contact number, closed at once: never charged, never handed over. */
function optedOut(now: number, error: string) {
  return {
    price_units: 0,
    stage: 2,
    status: 'refused' as MessageStatus,
    dlr_code: OPTOUT_STATUS,
    error,
    dlr_at: now,
  };
}
