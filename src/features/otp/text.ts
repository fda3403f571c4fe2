import { gsm7Length, isGsm7, toGsm7 } from '../../text/gsm7.js';
import { spokenCode } from './codes.js';
import { OtpError } from './errors.js';

export type OtpChannel = 'sms' | 'chatapp' | 'voice';

/** The spec's default text for sms and voice. */
export const DEFAULT_MESSAGE = '{{code}} is your verification code from {{company}}. Do not share it.';

import { CHATAPP_TEMPLATE } from '../../text/chatapp-otp.js';

export { CHATAPP_TEMPLATE };

export const MAX_TEXT = 160;

/**
 * The code's standard text: the default for sms and voice (a custom message
 * that repeats it counts too) or chat-app's fixed template. Only these may
 * skip the opt-out list when a family exempts OTP codes.
 */
export const isStandardText = (template: string) => template === DEFAULT_MESSAGE || template === CHATAPP_TEMPLATE;

/** A name: letters (with their accents), digits, spaces and . , & ' ’ - only. */
const NAME = /^[\p{L}\p{M}\p{Nd} .,&'’-]*$/u;
/** A web address without its scheme: a dot between a letter or digit and two more (shop.example, bit.ly; not S.A.). */
const DOMAIN = /[\p{L}\p{Nd}]\.[\p{L}\p{Nd}]{2}/u;
/** A phone number or a price: five digits in a row. */
const DIGITS = /\p{Nd}{5}/u;

/**
 * The company as it will appear in a GSM-7 text: accents a GSM-7 text lacks
 * are dropped (á → a); characters with no GSM-7 form are refused. It names the
 * sender in a code's text (the standard text may reach opted-out numbers), so
 * it must read as a name: no web address, no phone number, no other symbols.
 */
export function companyText(company: string, path: string): string {
  const converted = toGsm7(company);
  const question = (s: string) => [...s].filter((c) => c === '?').length;
  const invalid = (hint: string) => new OtpError(400, 'otp_invalid_param', { hint, next: [path], field: 'company' });
  if (question(converted) > question(company))
    throw invalid(
      'company may use letters, digits and common punctuation (GSM-7); emoji and other scripts cannot be sent.',
    );
  if (!NAME.test(company) || DOMAIN.test(company) || DIGITS.test(company))
    throw invalid(
      "company is the sender's name: letters, digits, spaces and . , & ' - only, with no web address and no run of 5 digits.",
    );
  return converted;
}

/**
 * Checks a custom message for sms or voice, for a code of `codeLength`
 * characters, and throws 400 otp_message_invalid with what to fix.
 */
export function checkMessage(
  channel: OtpChannel,
  message: string,
  company: string,
  codeLength: number,
  path: string,
): void {
  const fail = (hint: string) => new OtpError(400, 'otp_message_invalid', { hint, next: [path], field: 'message' });
  const missing = ['{{code}}', '{{company}}'].filter((p) => !message.includes(p));
  if (missing.length > 0) throw fail(`message must contain ${missing.join(' and ')}; for example: ${DEFAULT_MESSAGE}`);
  if (!isGsm7(message)) {
    const bad = [...new Set([...message].filter((c) => !isGsm7(c)))].slice(0, 5).join(' ');
    throw fail(`message may use only GSM-7 characters; replace: ${bad}`);
  }
  const length = gsm7Length(renderText(channel, message, company, 'X'.repeat(codeLength)));
  if (length > MAX_TEXT)
    throw fail(
      `message is ${length} characters once {{code}} and {{company}} are filled in; the limit is ${MAX_TEXT}.`,
    );
}

/** The text sent: the template with the code (spelled out for voice) and the company filled in. */
export function renderText(channel: OtpChannel, template: string, company: string, code: string): string {
  const shown = channel === 'voice' ? spokenCode(code) : code;
  // Replacer functions: a `$` in the company must stay literal.
  return template.replaceAll('{{code}}', () => shown).replaceAll('{{company}}', () => company);
}
