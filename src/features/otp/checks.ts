import type { WithConfig } from '../../context.js';
import { formatLocal, formatLocalDate, parseLocal } from '../../lib/time.js';
import { channelNumbers } from '../../phone/accepted.js';
import { OtpError } from './errors.js';
import { effectiveState, PATHS, resendAvailableIn, type OtpState } from './machine.js';
import type { CreateParams } from './params.js';
import { recordStart, startsSince, type NumberKey, type Verification } from './store.js';
import { CHATAPP_TEMPLATE, DEFAULT_MESSAGE, companyText } from './text.js';

/**
 * What every OTP transition checks and answers with: the view of a
 * verification, and the refusals of a new code (number, countries, company,
 * cooldown, daily and hourly caps). The transitions themselves are in
 * service.ts (send) and verify.ts (verify, status, delete, reset).
 */

export interface OtpReply {
  status: number;
  body: Record<string, unknown>;
  /** The messages that carried the code (sendCode only): the previous OTP API answers their reference and price. */
  messageIds?: number[];
}

/** Transitions decided on a read retry when another request changed the row first; this bounds the retries. */
export const MAX_TRIES = 8;
const HOUR = 3600_000;

const localOrNull = (ms: number | null) => (ms === null ? null : formatLocal(ms));

/** The fields every answer about a verification carries. */
export function view(row: Verification | undefined, now: number, cooldown: number) {
  const state = effectiveState(row, now);
  const open = state === 'pending' || state === 'locked' || state === 'expired';
  return {
    state,
    expires_at: open ? localOrNull(row!.expires_at) : null,
    attempts_remaining: open ? row!.attempts_remaining : null,
    resend_available_in: resendAvailableIn(row, now, cooldown),
  };
}

/**
 * The lists of countries that narrow the deployment's for this account: the family's for every channel (`accounts set
 * --countries`) and, for codes only, its own OTP list (`otp settings --countries`). A code goes only to a country both
 * allow; the refusal is the same.
 */
export function checkCountryAllowed(
  caller: { allowedCountries: string | null },
  countryCode: string,
  familyCountries: ReadonlySet<string> | null,
): void {
  const refusal = (list: string, command: string) =>
    new OtpError(403, 'otp_country_blocked', {
      hint: `This account sends codes only to country codes ${list}; the operator changes it with mensajero ${command}.`,
      next: [],
    });
  if (familyCountries && !familyCountries.has(countryCode))
    throw refusal([...familyCountries].join(','), 'accounts set --countries');
  if (caller.allowedCountries && !caller.allowedCountries.split(',').includes(countryCode)) {
    throw refusal(caller.allowedCountries, 'otp settings');
  }
}

/** The template and company for the channel (chat-app: the fixed template), with warnings for what was ignored. */
export function channelText(p: CreateParams, path: string): { company: string; template: string; warnings: string[] } {
  if (p.channel === 'chatapp') {
    const ignored = [p.message !== undefined && 'message', p.company !== undefined && 'company'].filter(Boolean);
    const warnings =
      ignored.length > 0
        ? [`The chat-app channel uses a fixed official template: ${ignored.join(' and ')} ignored.`]
        : [];
    return { company: '', template: CHATAPP_TEMPLATE, warnings };
  }
  if (p.company === undefined) {
    throw new OtpError(
      400,
      'otp_missing_param',
      {
        hint: `company is required with the ${p.channel} channel: it names the sender in the text.`,
        next: [path],
        field: 'company',
      },
      'A required parameter is missing: company',
    );
  }
  return { company: companyText(p.company, path), template: p.message ?? DEFAULT_MESSAGE, warnings: [] };
}

/**
 * Toll fraud: premium-rate, satellite and other countries' ranges pay whoever
 * sends to them. A code goes only to a number the channel's own send path
 * accepts (channelNumbers: /sms/send's countries and lines for sms,
 * /voice/send's and /chatapp/send's for voice and chatapp), before any
 * account's own narrower list.
 */
export function checkNumber(ctx: WithConfig, p: Pick<CreateParams, 'channel' | 'country_code' | 'phone_number'>): void {
  const rule = channelNumbers(ctx.config, p.channel);
  const refused = rule.refusal(p.country_code, p.phone_number);
  if (refused === 'country') {
    throw new OtpError(400, 'otp_country_unsupported', {
      hint: `This service sends codes by ${p.channel} only to country codes ${[...rule.countryCodes].join(',')}.`,
      next: [],
      field: 'country_code',
    });
  }
  if (refused === 'number' || refused === 'length') {
    const nanp = p.country_code === '1' ? ` +1 numbers only of ${ctx.config.NANP_ALLOWED_REGIONS}.` : '';
    throw new OtpError(400, 'otp_number_unsupported', {
      hint: `Codes go only to mobile or geographic numbers of the country's plan: not to premium-rate, toll-free or other non-geographic ranges, nor to numbers the plan does not have.${nanp}`,
      next: [],
      field: 'phone_number',
    });
  }
}

/**
 * A round locked with the cooldown allows no new code for the number before
 * OTP_LOCK_COOLDOWN_SECONDS, whatever the way (rotate, delete then create):
 * otherwise lock-and-rotate gives a guess every few seconds all day.
 */
export function checkLockCooldown(ctx: WithConfig, row: Verification, state: OtpState, now: number): void {
  if (row.locked_at === null) return;
  const wait = Math.ceil((row.locked_at + ctx.config.OTP_LOCK_COOLDOWN_SECONDS * 1000 - now) / 1000);
  if (wait <= 0) return;
  throw new OtpError(
    429,
    'otp_lock_cooldown',
    {
      state,
      hint: `Too many wrong codes were typed for this number: a new code is possible in ${wait} s.`,
      next: [PATHS.status],
      resend_available_in: wait,
    },
    undefined,
    { 'Retry-After': String(wait) },
  );
}

/** The per-number daily cap (rounds and sends, all channels, the account and its sub-accounts together), reset at Mexico City midnight. */
export function dailyLimit(state: OtpState, caps: { rounds: number; sends: number }, now: number): OtpError {
  const wait = Math.max(1, Math.ceil((parseLocal(formatLocalDate(now))! + 24 * HOUR - now) / 1000));
  return new OtpError(
    429,
    'otp_daily_limit',
    {
      state,
      hint: `At most ${caps.rounds} new codes and ${caps.sends} sends per phone number per day; the count starts again at midnight (Mexico City). A code already sent can still be verified.`,
      next: [PATHS.verify, PATHS.status],
      resend_available_in: wait,
    },
    undefined,
    { 'Retry-After': String(wait) },
  );
}

/** The per-number hourly limit: counts new codes of the last hour, refuses or records this one. */
export async function checkAndRecordStart(
  trx: Parameters<typeof startsSince>[0],
  key: NumberKey,
  max: number,
  now: number,
): Promise<number> {
  const { count, oldest } = await startsSince(trx, key, now - HOUR);
  if (count >= max) {
    const wait = Math.max(1, Math.ceil(((oldest ?? now) + HOUR - now) / 1000));
    throw new OtpError(
      429,
      'otp_rate_limited',
      {
        hint: `This account allows ${max} new codes per phone number per hour; the next is possible in ${wait} s. A code already sent can still be verified.`,
        next: [PATHS.verify, PATHS.status],
        resend_available_in: wait,
      },
      undefined,
      { 'Retry-After': String(wait) },
    );
  }
  return recordStart(trx, key, now);
}
