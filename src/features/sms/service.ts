import type { AppContext, WithConfig, WithDb } from '../../context.js';
import { toCredits } from '../../accounts/credits.js';
import { ApiError } from '../../http/errors.js';
import { randomToken } from '../../lib/ids.js';
import { send, type SendContext } from '../../messaging/send.js';
import { newReadTokens, readLink, recordReadTrackings, type ReadConfirmationInput } from '../../messaging/tracking.js';
import type { Recipient, SubmitRequest } from '../../messaging/types.js';
import { channelNumbers } from '../../phone/accepted.js';
import { checkLength, composeText, ONE_GSM_SMS, parseExtraParams, parseRecipients } from './rules.js';
import { parseSendDate } from '../../messaging/schedule.js';
import { findSender, insertShortLink, isLandline } from './store.js';
import { mayBeSender } from './senders.js';
export { clickShortLink, shortLinkTarget } from './store.js';
export type { SendContext } from '../../messaging/send.js';

/** A send request after schema parsing (routes.ts): the fields whose rules need more than a type. */
export interface SmsSendInput {
  numbers: string;
  message: string;
  country_code: string;
  find_country_code: 0 | 1;
  sender?: string;
  name?: string;
  date?: string;
  sandbox: 0 | 1;
  channel: 1 | 2;
  flash: 0 | 1;
  shorten_url: 0 | 1;
  extra_params?: unknown;
  read_confirmation?: ReadConfirmationInput;
}

export interface SmsSendResult {
  code: 'sms_11' | 'sms_19';
  total_messages: number;
  references: Array<{ reference: string; number: string }>;
  credit: number;
  campaignId: number;
}

/** Public address of a short link. */
export const shortLinkUrl = (ctx: WithConfig, code: string) => `${ctx.config.publicBaseUrl}/s/${code}`;

/**
 * POST/GET /sms/send: every rule, then the one send call (send.ts: campaign,
 * messages, debit, hand-over; plus the short link and the read-confirmation
 * links in the same transaction), shared with concurrent sends (group
 * commit). Accepted whole or not at all. A small immediate send is handed
 * over inline by this process, the others by the dispatch lanes.
 */
export async function sendSms(
  ctx: SendContext,
  accountId: number,
  input: SmsSendInput,
  textRules = ONE_GSM_SMS,
): Promise<SmsSendResult> {
  const now = Date.now();
  const numbers = channelNumbers(ctx.config, input.channel === 2 ? 'rcs' : 'sms');
  const recipients = parseRecipients(input.numbers, {
    findCountryCode: input.find_country_code === 1,
    countryCode: input.country_code,
    numbers,
  });
  const shortCode = input.shorten_url === 1 ? randomToken(6) : null;
  const composed = composeText(input.message, shortCode ? shortLinkUrl(ctx, shortCode) : null, textRules);
  // Every read-confirmation link has the same length: one sample checks them all.
  const withReadLink = (text: string, token: string) => `${text} ${readLink(ctx, token)}`;
  checkLength(input.read_confirmation ? withReadLink(composed.text, newReadTokens(1)[0]) : composed.text, textRules);
  const extraParams = parseExtraParams(input.extra_params);
  const scheduledAt = parseSendDate(input.date, now);
  if (input.flash === 1 && input.channel === 2) throw new ApiError(400, 'sms_40');
  const sender = await resolveSender(ctx, accountId, input);
  const landline =
    recipients.length === 1 &&
    (await isLandline(
      ctx.db.kysely,
      recipients[0].countryCode,
      recipients[0].number.slice(recipients[0].countryCode.length),
    ));

  const tokens = input.read_confirmation ? newReadTokens(recipients.length) : null;
  const perRecipient: Recipient[] = tokens
    ? recipients.map((r, i) => ({ ...r, text: withReadLink(composed.text, tokens[i]) }))
    : recipients;
  const [result] = await send(
    ctx,
    [
      {
        accountId,
        channel: input.channel === 2 ? 'rcs' : 'sms',
        source: 'sms',
        recipients: perRecipient,
        text: composed.text,
        campaignName: input.name ?? null,
        sender,
        flash: input.flash === 1,
        sandbox: input.sandbox === 1,
        scheduledAt,
        extraParams,
      },
    ],
    'inline',
    async (trx, [r]) => {
      if (shortCode && composed.shortenedUrl)
        await insertShortLink(trx, {
          code: shortCode,
          accountId,
          campaignId: r.campaignId,
          url: composed.shortenedUrl,
        });
      if (tokens && input.read_confirmation) {
        await recordReadTrackings(
          trx,
          accountId,
          input.read_confirmation,
          tokens.map((token, i) => ({ token, messageId: r.messageIds[i] })),
        );
      }
    },
  );
  return {
    code: landline ? 'sms_19' : 'sms_11',
    total_messages: result.references.length,
    references: result.references,
    credit: toCredits(result.creditUnits),
    campaignId: result.campaignId,
  };
}

/**
 * The sender to use: a registered one, or null (the default sender) when the
 * name is not registered. RCS needs a sender (sms_37) linked for RCS (sms_38).
 */
async function resolveSender(
  ctx: WithDb,
  accountId: number,
  input: Pick<SmsSendInput, 'sender' | 'channel'>,
): Promise<string | null> {
  const name = input.sender?.trim();
  if (input.channel === 2) {
    if (!name) throw new ApiError(400, 'sms_37');
    const row = await findSender(ctx.db.kysely, accountId, name);
    if (!row || row.rcs !== 1) throw new ApiError(400, 'sms_38');
    return row.name;
  }
  if (!name || !mayBeSender(name)) return null;
  return (await findSender(ctx.db.kysely, accountId, name))?.name ?? null;
}

/** The message of an SMPP submit_sm or submit_multi, exactly as the customer's client wrote it. */
export interface VerbatimMessage {
  /** Used when it is one of the account's registered senders. */
  sender: string;
  /** Decoded short_message: kept and reported as sent (no GSM-7 replacement); charged for the parts the carrier sends it in. */
  text: string;
  flash: boolean;
  /** Epoch ms; null or past: now. */
  scheduledAt: number | null;
  /** Epoch ms: not handed over by then, the message closes as expired (null: no end). */
  validUntil: number | null;
  meta: Record<string, unknown> | null;
}

/** One destination as written in the PDU. */
export interface VerbatimDestination {
  /** Digits as written in destination_addr. */
  destination: string;
  /** Read with its country code (TON 1, or 12 digits and more); otherwise 10 Mexican digits. */
  international: boolean;
}

/** One SMS exactly as a customer's SMPP client submitted it (the SMPP server's submit_sm). */
export type VerbatimSmsInput = VerbatimMessage & VerbatimDestination;

/** A destination's number by the send path's rules; throws its ApiError. */
function verbatimRecipient(ctx: WithConfig, d: VerbatimDestination, seen: Set<string>): Recipient {
  const [recipient] = parseRecipients(d.destination, {
    findCountryCode: d.international,
    countryCode: '52',
    numbers: channelNumbers(ctx.config, 'sms'),
  });
  if (seen.has(recipient.number)) throw new ApiError(400, 'sms_16', undefined, { number: recipient.number });
  seen.add(recipient.number);
  return recipient;
}

/** Lookups shared by the verbatim messages of one SMPP turn: each sender name. */
interface VerbatimLookups {
  senders: Map<string, Promise<string | null>>;
}

const newLookups = (): VerbatimLookups => ({ senders: new Map() });

/** A verbatim message as a send: sender, schedule (priced as every send: parts × each recipient's price). Throws its ApiError. */
async function verbatimRequest(
  ctx: AppContext,
  accountId: number,
  input: VerbatimMessage,
  recipients: Recipient[],
  lookups: VerbatimLookups,
): Promise<SubmitRequest> {
  if (input.text === '') throw new ApiError(400, 'sms_01');
  let sender = lookups.senders.get(input.sender);
  if (!sender)
    lookups.senders.set(input.sender, (sender = resolveSender(ctx, accountId, { sender: input.sender, channel: 1 })));
  const now = Date.now();
  return {
    accountId,
    channel: 'sms',
    source: 'sms',
    recipients,
    text: input.text,
    sender: await sender,
    flash: input.flash,
    scheduledAt: input.scheduledAt !== null && input.scheduledAt > now ? input.scheduledAt : null,
    validUntil: input.validUntil,
    meta: input.meta,
  };
}

/** The one send of verbatim messages: sender, prices, credits, group commit, hand-off. */
async function sendVerbatim(ctx: AppContext, accountId: number, input: VerbatimMessage, recipients: Recipient[]) {
  const [result] = await send(ctx, [await verbatimRequest(ctx, accountId, input, recipients, newLookups())], 'inline');
  return result;
}

/**
 * The submit_sm of one turn of an SMPP bind, each with /sms/send's number
 * rules, sender, prices, credits, routes and hand-off, its text as it came:
 * its reference, or the ApiError (or other error) that refused it. They are
 * written by one work of the group commit (one price lookup, opt-out query
 * and debit); when that fails (the balance does not cover them all), each is
 * sent alone so that only those the balance does not cover are refused.
 */
export async function sendVerbatimSmsTurn(
  ctx: AppContext,
  accountId: number,
  inputs: VerbatimSmsInput[],
): Promise<Array<{ reference: string } | { error: unknown }>> {
  const outcomes: Array<{ reference: string } | { error: unknown }> = [];
  const reqs: Array<{ index: number; req: SubmitRequest }> = [];
  const lookups = newLookups();
  for (const [index, input] of inputs.entries()) {
    try {
      const recipient = verbatimRecipient(ctx, input, new Set());
      reqs.push({ index, req: await verbatimRequest(ctx, accountId, input, [recipient], lookups) });
    } catch (error) {
      outcomes[index] = { error };
    }
  }
  if (reqs.length === 0) return outcomes;
  const results = await send(
    ctx,
    reqs.map((r) => r.req),
    'inline',
  ).catch(() =>
    Promise.all(
      reqs.map(({ req }) =>
        send(ctx, [req], 'inline').then(
          ([result]) => result,
          (error: unknown) => ({ error }),
        ),
      ),
    ),
  );
  results.forEach((result, k) => {
    outcomes[reqs[k].index] = 'error' in result ? result : { reference: result.references[0].reference };
  });
  return outcomes;
}

/**
 * The SMPP submit_multi: one message to several destinations, as one
 * multi-recipient send. A destination the number rules refuse (or a repeated
 * one) is left out with its ApiError; the others are accepted together or,
 * on a refusal of the whole send (credits, text), not at all (it throws).
 * The first accepted destination's reference is `reference`.
 */
export async function sendVerbatimSmsMulti(
  ctx: AppContext,
  accountId: number,
  input: VerbatimMessage & { destinations: VerbatimDestination[]; reference: string },
): Promise<{
  accepted: Array<{ index: number; reference: string }>;
  refused: Array<{ index: number; error: unknown }>;
}> {
  const seen = new Set<string>();
  const refused: Array<{ index: number; error: unknown }> = [];
  const recipients: Array<Recipient & { index: number }> = [];
  input.destinations.forEach((d, index) => {
    try {
      recipients.push({ ...verbatimRecipient(ctx, d, seen), index });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      refused.push({ index, error });
    }
  });
  if (recipients.length === 0) return { accepted: [], refused };
  recipients[0].reference = input.reference;
  const result = await sendVerbatim(
    ctx,
    accountId,
    input,
    recipients.map(({ index: _, ...r }) => r),
  );
  return {
    accepted: recipients.map((r, k) => ({ index: r.index, reference: result.references[k].reference })),
    refused,
  };
}
