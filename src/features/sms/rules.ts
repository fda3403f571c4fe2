import { normaliseHttpUrl } from '../../http/redirect.js';
import { ApiError } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { gsm7Length, isGsm7, toGsm7 as gsm7 } from '../../text/gsm7.js';
import { smsParts } from '../../smpp-protocol/encoding.js';
import { findUrls } from '../../text/urls.js';

defineMessages({
  sms_01: 'The message is empty',
  sms_02:
    'The message is longer than 160 GSM-7 characters (after transliteration, with any short or read-confirmation link), or than the SMS parts the account may send (max_parts)',
  sms_03: 'numbers is required: comma-separated 10-digit numbers',
  sms_04:
    "A number is malformed: 10 digits without country code (another country's own length for its code), or with its country code with find_country_code 1",
  sms_05: 'country_code is missing',
  sms_06: 'The campaign name is longer than 100 characters',
  sms_11: 'sent_messages',
  sms_15: 'More than 500 numbers',
  sms_16: 'A number is repeated',
  sms_18: 'Unsupported country code',
  sms_19: 'sent_messages',
  sms_20: 'The scheduled date is in the past',
  sms_21: 'The scheduled date is not YYYY-MM-DD HH:MM:SS',
  sms_24: 'Unsupported area code',
  sms_29: 'shorten_url is 1 but the message has no URL',
  sms_31: 'shorten_url is 1 but the message has more than one URL',
  sms_36: 'channel must be 1 (SMS) or 2 (RCS)',
  sms_37: 'RCS (channel 2) needs a sender',
  sms_38: 'The sender is not linked for RCS',
  sms_39: 'flash must be 0 or 1',
  sms_40: 'flash cannot be combined with RCS',
  sms_41: 'extra_params must be a JSON object of at most 3 pairs, each key and value 1 to 255 characters',
  sms_42: 'sandbox, find_country_code, shorten_url and showCampaignId take 0 or 1',
  sms_43: 'validity must be a whole number of minutes from 1 to 10080',
});

export const MAX_SMS_LENGTH = 160;
/** The most SMS parts a long message of an account with long SMS on is sent in (10 × 153 GSM-7 characters). */
export const MAX_LONG_PARTS = 10;

/**
 * What an account may send over HTTP (`accounts set --long-sms`, `--unicode`).
 * Both off: one SMS of 160 GSM-7 characters, others replaced (the spec's rule).
 */
export interface TextRules {
  /** Up to MAX_LONG_PARTS concatenated parts. */
  long: boolean;
  /** A text GSM-7 cannot hold goes as it is (UCS-2), not replaced. */
  unicode: boolean;
}

export const ONE_GSM_SMS: TextRules = { long: false, unicode: false };

/** The text rules of an account from its caller row (its own settings, else its parent's). */
export const textRulesOf = (a: { long_sms: number; unicode_sms: number }): TextRules => ({
  long: a.long_sms === 1,
  unicode: a.unicode_sms === 1,
});

/** The text to send, with the URL to shorten when shorten_url is 1. */
export interface ComposedText {
  /** GSM-7 text, with the short link in place of the URL. */
  text: string;
  /** The URL the short link redirects to. */
  shortenedUrl: string | null;
}

/** Longer input cannot fit 160 characters, nor 10 parts, whatever transliteration does to it; refused before any work. */
const MAX_INPUT = 2000;

/**
 * The message → GSM-7 text (sms_01 empty). With shorten_url the one URL
 * (sms_29 none, sms_31 several) is replaced by `shortLink` and kept as
 * written (not transliterated), so the redirect reaches it unchanged.
 * The 160 check is separate (checkLength) because a read-confirmation link
 * is appended after.
 */
export function composeText(message: string, shortLink: string | null, rules = ONE_GSM_SMS): ComposedText {
  if (message.trim() === '') throw new ApiError(400, 'sms_01');
  if (message.length > MAX_INPUT) throw new ApiError(400, 'sms_02');
  // Unicode on: a text GSM-7 cannot hold is kept as written (the carrier gets it in UCS-2).
  const toGsm7 = rules.unicode && !isGsm7(message) ? (s: string) => s : gsm7;
  if (shortLink === null) {
    const text = toGsm7(message);
    if (text.trim() === '') throw new ApiError(400, 'sms_01');
    return { text, shortenedUrl: null };
  }
  const urls = findUrls(message);
  if (urls.length === 0) throw new ApiError(400, 'sms_29');
  if (urls.length > 1) throw new ApiError(400, 'sms_31');
  const [url] = urls;
  // Stored normalised, so the redirect's Location header is always valid.
  const target = normaliseHttpUrl(url.href);
  if (!target) throw new ApiError(400, 'sms_29');
  const text = toGsm7(message.slice(0, url.start)) + shortLink + toGsm7(message.slice(url.end));
  return { text, shortenedUrl: target };
}

/**
 * sms_02 when the final text (links included: they are sent) passes 160 GSM-7
 * characters; for an account with long SMS or Unicode on, when it needs more
 * SMS parts than it may send (1, or MAX_LONG_PARTS with long SMS), counted as
 * the carrier connector splits and charges it (smsParts: 160/153 GSM-7,
 * 70/67 UCS-2). Then the error says `parts` and `max_parts`.
 */
export function checkLength(finalText: string, rules = ONE_GSM_SMS): void {
  if (!rules.long && !rules.unicode) {
    if (gsm7Length(finalText) > MAX_SMS_LENGTH) throw new ApiError(400, 'sms_02');
    return;
  }
  const max = rules.long ? MAX_LONG_PARTS : 1;
  const parts = smsParts(finalText);
  if (parts > max) throw new ApiError(400, 'sms_02', undefined, { parts, max_parts: max });
}

/**
 * What the panel's counter shows of a final text: its length in the units of
 * its coding (GSM-7 septets, or UTF-16 units for UCS-2), the most the account
 * may send in them, and the SMS parts it is charged for (checkLength's rule).
 */
export function textCapacity(text: string, rules = ONE_GSM_SMS): { length: number; max: number; parts: number } {
  if (!rules.long && !rules.unicode) return { length: gsm7Length(text), max: MAX_SMS_LENGTH, parts: 1 };
  const parts = rules.long ? MAX_LONG_PARTS : 1;
  if (isGsm7(text)) return { length: gsm7Length(text), max: parts === 1 ? 160 : 153 * parts, parts: smsParts(text) };
  return { length: text.length, max: parts === 1 ? 70 : 67 * parts, parts: smsParts(text) };
}

const MAX_EXTRA_PARAMS = 4096;

/**
 * extra_params → the JSON string stored and echoed in events, or null.
 * A JSON string (form bodies, query strings) or an object (JSON bodies) of
 * at most 3 pairs, keys and values 1 to 255 characters; values may be
 * strings, numbers or booleans. Anything else: sms_41.
 */
export function parseExtraParams(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  let parsed: unknown;
  if (typeof value === 'string') {
    if (value.length > MAX_EXTRA_PARAMS) throw new ApiError(400, 'sms_41');
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new ApiError(400, 'sms_41');
    }
  } else parsed = value;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ApiError(400, 'sms_41');
  const entries = Object.entries(parsed);
  if (entries.length > 3) throw new ApiError(400, 'sms_41');
  for (const [k, v] of entries) {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw new ApiError(400, 'sms_41');
    const text = String(v);
    if (k.length < 1 || k.length > 255 || text.length < 1 || text.length > 255) throw new ApiError(400, 'sms_41');
  }
  // Serialised only once its shape is known flat: a deeply nested object would overflow the stack.
  return typeof value === 'string' ? value : JSON.stringify(parsed);
}
