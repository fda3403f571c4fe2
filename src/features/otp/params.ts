import { unstorablePath } from '../../text/storable.js';
import { z } from 'zod';
import { ACCEPTED, bool, flag, integer } from '../../http/fields.js';
import { parseLocal } from '../../lib/time.js';
import { cleanCountryCode, cleanNationalNumber } from '../../phone/numbers.js';
import { OtpError, type OtpErrorSlug } from './errors.js';

/**
 * Request parameters of the OTP endpoints. Zod issue messages are the error
 * slugs; parseOtp turns the first issue into an OtpError with a hint for the
 * field. JSON and form bodies alike: numbers and strings are both accepted.
 */
const MISSING: OtpErrorSlug = 'otp_missing_param';
const INVALID: OtpErrorSlug = 'otp_invalid_param';

const blankToUndefined = (v: unknown) => (v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v);
const asText = (v: unknown) =>
  typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'string' ? v.trim() : v;

/** A required string ('' counts as missing), trimmed, matching `pattern`. */
const requiredText = (pattern: RegExp) =>
  z
    .preprocess(
      (v) => asText(blankToUndefined(v)),
      z.string({ error: (iss) => (iss.input === undefined ? MISSING : INVALID) }),
    )
    .pipe(z.string().regex(pattern, { error: INVALID }))
    .meta(ACCEPTED.text());

const optional = <S extends z.ZodType>(schema: S) => z.preprocess(blankToUndefined, schema.optional());

export const PHONE = /^\d{4,10}$/;
const COUNTRY = /^\+?[1-9]\d{0,2}$/;

/** Applies `clean` to strings before the field's rules: numbers and country codes as clients write them ('55 1234-5678', '+52', '052'). */
const cleaned = <S extends z.ZodType>(clean: (s: string) => string, schema: S) =>
  z.preprocess((v) => (typeof v === 'string' ? clean(v) : v), schema);

const Number_ = {
  phone_number: cleaned(cleanNationalNumber, requiredText(PHONE)).describe(
    'national number, 4 to 10 digits, without the country code',
  ),
  country_code: cleaned(cleanCountryCode, requiredText(COUNTRY))
    .transform((c) => c.replace(/^\+/, ''))
    .describe('numeric calling code, e.g. 52'),
};

export const NumberQuery = z.object(Number_);

export const CreateBody = z.object({
  ...Number_,
  // 'whatsapp' is the chat-app channel's name in integrations written before the rename (docs/api/compatibility.md).
  channel: optional(
    z.preprocess(
      (v) => (v === 'whatsapp' ? 'chatapp' : v),
      z.enum(['sms', 'chatapp', 'voice'], { error: 'otp_invalid_channel' }),
    ),
  )
    .default('sms')
    .meta({ type: 'string', enum: ['sms', 'chatapp', 'voice', 'whatsapp'], default: 'sms' }),
  company: optional(z.preprocess(asText, z.string({ error: INVALID }).max(50, { error: INVALID }))).describe(
    "required with sms and voice; ignored with chatapp; a name: letters, digits, spaces and . , & ' - (no web address, no run of 5 digits)",
  ),
  message: optional(z.preprocess(asText, z.string({ error: INVALID }))).describe(
    'sms and voice: must contain {{code}} and {{company}}; GSM-7; at most 160 characters after substitution',
  ),
  code_format: optional(z.enum(['numeric', 'alphanumeric', 'letters'], { error: INVALID })).default('numeric'),
  code_length: optional(
    integer(INVALID, INVALID).pipe(z.number().min(4, { error: INVALID }).max(10, { error: INVALID })),
  ).default(6),
  code_rotate: optional(bool(INVALID)).default(false),
  code_show: flag(INVALID),
  // Not in the spec's table: the official assistant-tool server sends it (docs/api/compatibility.md).
  sandbox: optional(bool(INVALID))
    .default(false)
    .describe('true, 1, "1" or "true": validate and answer as a real send would, but send, charge and store nothing'),
  expiration_date: optional(
    z
      .preprocess(
        asText,
        z.string({ error: INVALID }).regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, { error: INVALID }),
      )
      .transform((s, ctx) => {
        const at = parseLocal(s);
        if (at === null) ctx.addIssue({ code: 'custom', message: INVALID });
        return at ?? 0;
      }),
  ).describe(
    'YYYY-MM-DD HH:mm:ss, America/Mexico_City, in the future; default 24 h; later than 3 days is reduced to 3 days',
  ),
});
export type CreateParams = z.output<typeof CreateBody>;

export const VerifyBody = z.object({
  ...Number_,
  code: requiredText(/^[A-Za-z0-9]{4,10}$/).describe('the code received'),
});

const HINTS: Record<string, string> = {
  phone_number: 'phone_number is the national number: 4 to 10 digits without the country code, e.g. "5512345678".',
  country_code: 'country_code is the numeric calling code, e.g. "52" for Mexico.',
  channel: 'channel is sms (the default), chatapp or voice.',
  company:
    "company names the sender in the text: at most 50 letters, digits, spaces and . , & ' -; it is required with sms and voice.",
  message: 'message is text containing {{code}} and {{company}}.',
  code_format: 'code_format is numeric (the default), alphanumeric or letters.',
  code_length: 'code_length is an integer from 4 to 10 (default 6).',
  code_rotate: 'code_rotate is true or false.',
  code_show: 'code_show is 0 (the default) or 1.',
  sandbox: 'sandbox is true or false (1 or 0).',
  expiration_date: 'expiration_date is YYYY-MM-DD HH:mm:ss in Mexico City time, in the future; at most 3 days ahead.',
  code: 'code is the code the user received: 4 to 10 letters or digits.',
};

/** Parameters of the previous OTP API, refused by name. */
const LEGACY = ['voice', 'whatsapp', 'template'];

/** Parses a request's parameters or throws the OTP 400 for the first problem. */
export function parseOtp<S extends z.ZodType>(schema: S, input: unknown, path: string): z.output<S> {
  const source = input ?? {};
  if (typeof source === 'object' && !Array.isArray(source)) {
    const legacy = LEGACY.find((name) => (source as Record<string, unknown>)[name] !== undefined);
    if (legacy) {
      throw new OtpError(400, INVALID, {
        hint: `${legacy} is a parameter of the previous OTP API: choose the channel with channel = sms, chatapp or voice.`,
        next: [path],
        field: legacy,
      });
    }
  }
  const result = schema.safeParse(source);
  if (result.success) {
    const bad = unstorablePath(result.data);
    if (bad === null) return result.data;
    throw new OtpError(
      400,
      INVALID,
      {
        hint: `${bad} contains a character that cannot be stored (NUL or another control character).`,
        next: [path],
        field: bad,
      },
      `${MESSAGE_OF[INVALID]}: ${bad}`,
    );
  }
  const issue = result.error.issues[0];
  const field = issue.path.map(String).join('.');
  const slug = (
    ['otp_missing_param', 'otp_invalid_channel'].includes(issue.message) ? issue.message : INVALID
  ) as OtpErrorSlug;
  const hint = field
    ? (slug === MISSING ? `${field} is required. ` : '') + (HINTS[field] ?? '')
    : 'Send the parameters as a JSON object or form fields.';
  throw new OtpError(
    400,
    slug,
    { hint: hint.trim(), next: [path], ...(field ? { field } : {}) },
    field ? `${MESSAGE_OF[slug]}: ${field}` : undefined,
  );
}

const MESSAGE_OF: Partial<Record<OtpErrorSlug, string>> = {
  otp_missing_param: 'A required parameter is missing',
  otp_invalid_param: 'A parameter is invalid',
  otp_invalid_channel: 'The channel is not valid',
};
