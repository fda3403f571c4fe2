import type { WithDb } from '../context.js';
import type { Executor } from '../db/engine.js';
import type { ChannelNumbers } from '../phone/accepted.js';
import { cleanCountryCode, cleanNumber, splitCountryCode, splitWritten, TEN_DIGIT_CODES } from '../phone/numbers.js';
import { Refusal } from './refusal.js';
import type { Recipient, SendRequest, TrafficClass } from './types.js';
import type { DestinationCaps } from './send-rules.js';

/**
 * The acceptance step of an SMS or RCS send, whichever front end asked (HTTP's /sms/send, the panel's Send page, the
 * SMPP server): its recipients, its sender and the request the send call writes. It refuses with a Refusal
 * (refusal.ts), which each front end answers in its own protocol.
 */

export const MAX_RECIPIENTS = 500;

export interface NumberRules {
  findCountryCode: boolean;
  /** The request's country code (used when findCountryCode is false). */
  countryCode: string;
  /** The channel's number rule (channelNumbers): its country codes and the lines it sends to. */
  numbers: ChannelNumbers;
}

/**
 * Comma-separated numbers → recipients, or the refusal: no_numbers, too_many_numbers (over 500), malformed_number,
 * no_country_code / unsupported_country_code, unsupported_line (not a mobile or geographic line the channel sends to:
 * premium, toll-free, +1 outside NANP_ALLOWED_REGIONS…), repeated_number. A number is 10 national digits (another
 * country of the list: its own length, see hasNationalLength); with findCountryCode it starts with its country code,
 * which libphonenumber's metadata splits off (`15512345678` → 1 + 5512345678, `525512345678` → 52 + 5512345678).
 * Numbers are taken as clients write them: spaces, dashes and dots are dropped, and one written with a leading `+`
 * carries its country code whatever findCountryCode says (`+52 55 1234 5678`).
 */
export function acceptRecipients(raw: string, rules: NumberRules): Recipient[] {
  if (raw.trim() === '') throw new Refusal('no_numbers');
  const parts = raw.split(',');
  if (parts.length > MAX_RECIPIENTS) throw new Refusal('too_many_numbers');
  const requestCountryCode = cleanCountryCode(rules.countryCode);
  if (!rules.findCountryCode) {
    if (requestCountryCode === '') throw new Refusal('no_country_code');
    if (!rules.numbers.countryCodes.has(requestCountryCode)) throw new Refusal('unsupported_country_code');
  }
  const seen = new Set<string>();
  const recipients: Recipient[] = [];
  for (const part of parts) {
    const { digits, international } = splitWritten(cleanNumber(part));
    if (!/^\d{4,15}$/.test(digits)) throw new Refusal('malformed_number', { number: digits.slice(0, 20) });
    let countryCode: string;
    let national: string;
    if (rules.findCountryCode || international) {
      ({ countryCode, national } = splitNumber(digits, rules.numbers.countryCodes));
    } else {
      countryCode = requestCountryCode;
      national = digits;
    }
    const refused = rules.numbers.refusal(countryCode, national);
    if (refused) throw new Refusal(refused === 'number' ? 'unsupported_line' : 'malformed_number', { number: digits });
    const full = countryCode + national;
    if (seen.has(full)) throw new Refusal('repeated_number', { number: digits });
    seen.add(full);
    recipients.push({ countryCode, number: full });
  }
  return recipients;
}

/**
 * A number written with its country code → the two (malformed_number when no country code is found,
 * unsupported_country_code when it is not served). A country code and 10 national digits is at least 11 digits: a
 * shorter number is malformed unless its country code is one of the channel's whose numbers are shorter (+34…).
 */
function splitNumber(digits: string, countryCodes: ReadonlySet<string>): { countryCode: string; national: string } {
  const split = splitCountryCode(digits);
  if (!split) throw new Refusal('malformed_number', { number: digits });
  const served = countryCodes.has(split.countryCode);
  if (digits.length <= 10 && (!served || TEN_DIGIT_CODES.has(split.countryCode)))
    throw new Refusal('malformed_number', { number: digits });
  if (!served) throw new Refusal('unsupported_country_code', { number: digits });
  return split;
}

/** A numeric sender: a short code or a long number with its country code, 3 to 15 digits. */
export const NUMERIC_SENDER = /^\d{3,15}$/;

/** Whether a send's `sender` could name a registered sender at all (else it means the default sender, unlooked-up). */
export const mayBeSender = (name: string): boolean => name.length <= 11 || NUMERIC_SENDER.test(name);

/**
 * The sender to use: a registered one, or null (the default sender) when the name is not registered, or refused
 * (sender_not_registered) when the family takes registered senders only (`accounts set --senders registered`); no
 * name at all is the default sender either way. RCS needs a sender (sender_required) linked for RCS (sender_not_rcs).
 */
export async function acceptSender(
  ctx: WithDb,
  accountId: number,
  sender: string | undefined,
  channel: 'sms' | 'rcs',
  registeredOnly = false,
): Promise<string | null> {
  const name = sender?.trim();
  if (channel === 'rcs') {
    if (!name) throw new Refusal('sender_required');
    const row = await registeredSender(ctx.db.kysely, accountId, name);
    if (!row || row.rcs !== 1) throw new Refusal('sender_not_rcs');
    return row.name;
  }
  if (!name) return null;
  const registered = mayBeSender(name) ? (await registeredSender(ctx.db.kysely, accountId, name))?.name : undefined;
  if (registered === undefined && registeredOnly) throw new Refusal('sender_not_registered');
  return registered ?? null;
}

/** A registered sender of the account (`senders add`), or undefined. */
function registeredSender(db: Executor, accountId: number, name: string) {
  return db
    .selectFrom('senders')
    .select(['name', 'rcs'])
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** What an accepted SMS or RCS send asks for, beyond its account, recipients and sender. */
export interface AcceptedMessage {
  channel: 'sms' | 'rcs';
  /** The final text (for SMS, as the front end's text rules left it). */
  text: string;
  flash: boolean;
  /** Epoch ms; null: now. */
  scheduledAt: number | null;
  sandbox?: boolean;
  campaignName?: string | null;
  /** Epoch ms; null: none; undefined: the family's default validity. */
  validUntil?: number | null;
  extraParams?: string | null;
  meta?: Record<string, unknown> | null;
  /** Asked by the front end (an SMPP user's class or priority_flag); undefined: by the send's size and schedule. */
  trafficClass?: TrafficClass;
}

/**
 * The request the send call writes for an accepted SMS or RCS send (src/messaging/send.ts); `caps`, the family's
 * destination caps, are counted by the writer (destination-caps.ts).
 */
export function acceptedRequest(
  accountId: number,
  recipients: Recipient[],
  sender: string | null,
  message: AcceptedMessage,
  caps: DestinationCaps | null = null,
): SendRequest {
  return { accountId, source: 'sms', recipients, sender, ...message, destinationCaps: caps };
}
