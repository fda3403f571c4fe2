import type { AppContext, WithConfig } from '../context.js';
import { acceptedRequest, acceptRecipients, acceptSender } from '../messaging/accept.js';
import { Refusal } from '../messaging/refusal.js';
import { send } from '../messaging/send.js';
import type { Recipient, SendRequest } from '../messaging/types.js';
import { channelNumbers } from '../phone/accepted.js';
import { acceptContent, countAbuseRefusal, familyRules } from '../messaging/accept-rules.js';
import { narrowedNumbers, type FamilyRules } from '../messaging/send-rules.js';

/**
 * What the SMPP server sends: the messages of its customers' submit_sm and
 * submit_multi, by /sms/send's rules (numbers, senders, prices, credits,
 * routes), through the one send call, handed over inline.
 */

/** The message of an SMPP submit_sm or submit_multi, exactly as the customer's client wrote it. */
export interface VerbatimMessage {
  /** Used when it is one of the account's registered senders. */
  sender: string;
  /** Decoded short_message: kept and reported as sent (no GSM-7 replacement); charged for the parts the carrier sends it in. */
  text: string;
  flash: boolean;
  /** Epoch ms; null or past: now. */
  scheduledAt: number | null;
  /** Epoch ms: not handed over by then, the message closes as expired (null: the family's default validity, if any). */
  validUntil: number | null;
  trafficClass: 'transactional' | 'bulk';
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

/** A destination's number by the send path's rules; throws its Refusal. */
function verbatimRecipient(ctx: WithConfig, d: VerbatimDestination, seen: Set<string>, rules: FamilyRules): Recipient {
  const [recipient] = acceptRecipients(d.destination, {
    findCountryCode: d.international,
    countryCode: '52',
    numbers: narrowedNumbers(channelNumbers(ctx.config, 'sms'), rules.countries),
  });
  if (seen.has(recipient.number)) throw new Refusal('repeated_number', { number: recipient.number });
  seen.add(recipient.number);
  return recipient;
}

/** Lookups shared by the verbatim messages of one SMPP turn: the family's rules and each sender name. */
interface VerbatimLookups {
  rules: FamilyRules;
  senders: Map<string, Promise<string | null>>;
}

const newLookups = async (ctx: AppContext, accountId: number): Promise<VerbatimLookups> => ({
  rules: await familyRules(ctx, accountId),
  senders: new Map(),
});

/** A verbatim message as a send: sender, schedule (priced as every send: parts × each recipient's price). Throws its Refusal. */
async function verbatimRequest(
  ctx: AppContext,
  accountId: number,
  input: VerbatimMessage,
  recipients: Recipient[],
  lookups: VerbatimLookups,
): Promise<SendRequest> {
  if (input.text === '') throw new Refusal('empty_text');
  const { rules } = lookups;
  let sender = lookups.senders.get(input.sender);
  if (!sender)
    lookups.senders.set(
      input.sender,
      (sender = acceptSender(ctx, accountId, input.sender, 'sms', rules.sendersRegistered)),
    );
  const accepted = await sender;
  await acceptContent(ctx, accountId, rules, { channel: 'sms', text: input.text, recipients: recipients.length });
  const now = Date.now();
  return acceptedRequest(
    accountId,
    recipients,
    accepted,
    {
      channel: 'sms',
      text: input.text,
      flash: input.flash,
      scheduledAt: input.scheduledAt !== null && input.scheduledAt > now ? input.scheduledAt : null,
      // No validity_period: the family's default validity applies.
      validUntil: input.validUntil ?? undefined,
      trafficClass: input.trafficClass,
      meta: input.meta,
    },
    rules.caps,
  );
}

/** The one send of verbatim messages: sender, prices, credits, group commit, hand-off. */
async function sendVerbatim(
  ctx: AppContext,
  accountId: number,
  input: VerbatimMessage,
  recipients: Recipient[],
  lookups: VerbatimLookups,
) {
  const [result] = await send(ctx, [await verbatimRequest(ctx, accountId, input, recipients, lookups)], 'inline');
  return result;
}

/**
 * The submit_sm of one turn of an SMPP bind, each with /sms/send's number
 * rules, sender, prices, credits, routes and hand-off, its text as it came:
 * its reference, or the Refusal (or other error) that refused it. Each is its
 * own send, all made in one turn so that the group commit writes them as one
 * work (one price lookup, opt-out query and debit); when that fails (the
 * balance does not cover them all), it writes each alone, so that only those
 * the balance does not cover are refused.
 */
export async function sendVerbatimSmsTurn(
  ctx: AppContext,
  accountId: number,
  inputs: VerbatimSmsInput[],
): Promise<Array<{ reference: string } | { error: unknown }>> {
  const lookups = await newLookups(ctx, accountId);
  const requests = await Promise.all(
    inputs.map(async (input) => {
      try {
        const recipient = verbatimRecipient(ctx, input, new Set(), lookups.rules);
        return await verbatimRequest(ctx, accountId, input, [recipient], lookups);
      } catch (error) {
        return { error: countAbuseRefusal(ctx, error) };
      }
    }),
  );
  // Sent in one loop, with no await between them: the group commit merges what it receives in one turn.
  return Promise.all(
    requests.map((req) =>
      'error' in req
        ? req
        : send(ctx, [req], 'inline').then(
            ([result]) => ({ reference: result.references[0].reference }),
            (error: unknown) => ({ error: countAbuseRefusal(ctx, error) }),
          ),
    ),
  );
}

/**
 * The SMPP submit_multi: one message to several destinations, as one
 * multi-recipient send. A destination the number rules refuse (or a repeated
 * one) is left out with its Refusal; the others are accepted together or,
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
  const lookups = await newLookups(ctx, accountId);
  input.destinations.forEach((d, index) => {
    try {
      recipients.push({ ...verbatimRecipient(ctx, d, seen, lookups.rules), index });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
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
    lookups,
  ).catch((error: unknown) => {
    throw countAbuseRefusal(ctx, error);
  });
  return {
    accepted: recipients.map((r, k) => ({ index: r.index, reference: result.references[k].reference })),
    refused,
  };
}
