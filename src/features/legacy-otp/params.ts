import { z } from 'zod';
import { ACCEPTED, flag, integerForms, optionalText } from '../../http/fields.js';
import { OtpError } from '../otp/errors.js';
import { TEMPLATES, type Template } from '../voice/scripts.js';

/**
 * Parameters of the previous OTP API (docs/api/compatibility.md). Only what is
 * particular to it is checked here: the channel flags, the voice script
 * letter, company's 40 characters, reset_code and sandbox. Everything else
 * is handed to /v2/otp's own parameters (src/features/otp/params.ts) under
 * its v2 name, so both APIs validate numbers, codes and dates alike.
 */
const INVALID = 'otp_invalid_param';

const legacyFlag = flag(INVALID);

export const LegacyChannel = z.object({
  voice: legacyFlag.describe('1: send the code by a voice call'),
  whatsapp: legacyFlag.describe('1: send the code by chat-app'),
  template: optionalText(INVALID)
    .transform((s) => s?.trim().toLowerCase())
    .pipe(z.enum(TEMPLATES.filter((t) => t !== 'k') as [Template, ...Template[]], { error: INVALID }).optional())
    .describe('voice script letter a to j (default a: verification code); only with voice 1'),
});

/** Present: not absent, null or blank (the value itself is checked by /v2/otp's rules). */
const present = (v: unknown) => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');
const required = (description: string) =>
  z
    .unknown()
    .refine(present, { error: 'otp_missing_param' })
    .meta({ ...ACCEPTED.text(), description });

const common = {
  phone_number: required('10 digits without the country code'),
  country_code: z
    .unknown()
    .optional()
    .meta({ ...ACCEPTED.optionalText(), description: 'default 52; +52, 052 and 0052 mean 52' }),
};

const company = optionalText(INVALID)
  .pipe(z.string().max(40, { error: INVALID }).optional())
  .describe('at most 40 characters; required with SMS and voice');
const codeType = z
  .unknown()
  .optional()
  .meta({ type: 'string', enum: ['numeric', 'alphanumeric'], description: 'default numeric' });
const expirationDate = z
  .unknown()
  .optional()
  .meta({ type: 'string', description: 'YYYY-MM-DD HH:mm:ss, America/Mexico_City; default 24 h, at most 3 days' });
const resetCode = (description: string) => flag(INVALID).describe(description);

export const StartParams = LegacyChannel.extend({
  ...common,
  company,
  code_length: z
    .unknown()
    .optional()
    .meta({ ...integerForms({ minimum: 4, maximum: 10 }), description: 'default 6' }),
  code_type: codeType,
  expiration_date: expirationDate,
  sandbox: flag(INVALID).describe(
    '1: validate and record a sandbox message; nothing is sent or charged and the verification does not change',
  ),
});

export const CheckParams = z.object({
  ...common,
  verification_code: required('the code the user received'),
});

export const ResendParams = LegacyChannel.extend({
  ...common,
  company,
  reset_code: resetCode('1: a new code; 0 (default): the same code'),
  code_type: codeType,
  expiration_date: expirationDate,
});

export const ResetParams = z.object({
  ...common,
  reset_code: resetCode(
    '1: the code is discarded (the next start or resend sends a new one); 0: the code is kept and its failed attempts cleared',
  ),
  code_type: codeType,
});

/** The v2 channel chosen by the voice and whatsapp flags (both: 400). */
export function channelOf(p: { voice: 0 | 1; whatsapp: 0 | 1 }, path: string): 'sms' | 'voice' | 'chatapp' {
  if (p.voice === 1 && p.whatsapp === 1) {
    throw new OtpError(
      400,
      INVALID,
      { hint: 'Choose one channel: voice 1 or whatsapp 1, not both.', next: [path], field: 'voice' },
      'A parameter is invalid: voice and whatsapp',
    );
  }
  return p.voice === 1 ? 'voice' : p.whatsapp === 1 ? 'chatapp' : 'sms';
}

/** v2 field names back to the names this API's clients sent, for error messages. */
export const LEGACY_NAMES: Record<string, string> = { code_format: 'code_type', code: 'verification_code' };
