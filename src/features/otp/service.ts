import type { AppContext, DbAndConfig, WithConfig, WithDb } from '../../context.js';
import type { Executor } from '../../db/engine.js';
import { ApiError } from '../../http/errors.js';
import { formatLocal, formatLocalDate, parseLocal } from '../../lib/time.js';
import { submitMessages } from '../../messaging/submit.js';
import { channelNumbers } from '../../phone/accepted.js';
import { codeDigest, codeMatches, generateCode, sealCode, unsealCode } from './codes.js';
import { OtpError } from './errors.js';
import {
  ATTEMPTS,
  decideCreate,
  effectiveState,
  expiryFor,
  hintFor,
  maxAttempts,
  nextFor,
  PATHS,
  resendAvailableIn,
  verifyRefusal,
  type CreateDecision,
  type OtpState,
} from './machine.js';
import type { CreateParams } from './params.js';
import {
  applyIfUnchanged,
  countDailyLock,
  countDailyRound,
  countDailySend,
  countFailure,
  ensureVerification,
  otpCaller,
  uncountDailySend,
  type DayKey,
  findVerification,
  forgetStart,
  markVerified,
  maskSentText,
  recordStart,
  resetToNone,
  startLockCooldown,
  startsSince,
  takeAttempt,
  type NumberKey,
  type Verification,
} from './store.js';
import { CHATAPP_TEMPLATE, DEFAULT_MESSAGE, checkMessage, companyText, renderText } from './text.js';

export interface OtpReply {
  status: number;
  body: Record<string, unknown>;
  /** The messages that carried the code (sendCode only): the previous OTP API answers their reference and price. */
  messageIds?: number[];
}

/** Transitions decided on a read retry when another request changed the row first; this bounds the retries. */
const MAX_TRIES = 8;
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

const ACTION_MESSAGES: Record<CreateDecision['action'], string> = {
  created: 'A verification code was sent',
  resent: 'The pending code was sent again',
  restarted: 'A new verification code was sent',
};

/** POST /v2/otp: create, resend or restart, then send the code through the messaging pipeline. */
export async function sendCode(
  ctx: Pick<AppContext, 'config' | 'db' | 'secrets' | 'groupCommit' | 'sharedDispatch' | 'prices'>,
  accountId: number,
  p: CreateParams,
): Promise<OtpReply> {
  const path = PATHS.send;
  const now = Date.now();
  const key: NumberKey = { accountId, countryCode: p.country_code, phoneNumber: p.phone_number };
  checkNumber(ctx, p);
  const caller = await otpCaller(ctx.db.kysely, accountId);
  const dayKey: DayKey = {
    rootAccountId: caller.rootAccountId,
    countryCode: p.country_code,
    phoneNumber: p.phone_number,
    day: formatLocalDate(now),
  };
  checkCountryAllowed(caller, p.country_code);

  const { company, template, warnings } = channelText(p, path);
  const expiry = expiryFor(p.expiration_date, now, path);
  if (expiry.reduced) warnings.push('expiration_date is more than 3 days ahead: it was reduced to 3 days.');

  // Every write runs through the process's group commit (shared with /sms/send):
  // concurrent creates and verifies share one COMMIT, each in its own savepoint.
  const grouped = ctx.groupCommit;
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const attempt = await grouped.run(async (trx) => {
      const before = await ensureVerification(trx, key, now);
      const current = view(before, now, ctx.config.OTP_RESEND_COOLDOWN_SECONDS);
      const decision = decideCreate(current.state, p.code_rotate, current.resend_available_in, current);
      if (decision.newCode) checkLockCooldown(ctx, before, current.state, now);
      const code = decision.newCode
        ? generateCode(p.code_format, p.code_length)
        : unsealCode(ctx.secrets.otpHmac, before.code_enc!);
      if (p.channel !== 'chatapp' && p.message !== undefined)
        checkMessage(p.channel, p.message, company, code.length, path);
      const changes = decision.newCode
        ? {
            state: 'pending' as const,
            round: before.round + 1,
            code_hash: codeDigest(ctx.secrets.otpHmac, before.id, code),
            code_enc: sealCode(ctx.secrets.otpHmac, code),
            code_format: p.code_format,
            code_length: p.code_length,
            attempts_remaining: ATTEMPTS,
            expires_at: expiry.expiresAt,
            last_sent_at: now,
            channel: p.channel,
            verified_at: null,
            updated_at: now,
          }
        : { last_sent_at: now, channel: p.channel, updated_at: now };
      if (!(await applyIfUnchanged(trx, before.id, before.version, changes))) return undefined;
      const caps = { rounds: ctx.config.OTP_DAILY_ROUNDS_PER_NUMBER, sends: ctx.config.OTP_DAILY_SENDS_PER_NUMBER };
      if (!(await countDailySend(trx, dayKey, decision.newCode, caps))) throw dailyLimit(current.state, caps, now);
      // The row is now written (and, on PostgreSQL, locked) by this transaction: counting here sees every committed start.
      const hourlyLimit = caller.maxPerNumberHour;
      const startId =
        decision.newCode && hourlyLimit !== null ? await checkAndRecordStart(trx, key, hourlyLimit, now) : null;
      try {
        const sent = await submitMessages(trx, ctx, {
          accountId,
          channel: p.channel,
          source: 'otp',
          recipients: [{ countryCode: p.country_code, number: p.country_code + p.phone_number }],
          text: renderText(p.channel, template, company, code),
          inlineDispatch: true,
        });
        return {
          before,
          decision,
          code,
          startId,
          campaignId: sent.campaignId,
          messageIds: sent.messageIds,
          optedOut: sent.optedOut.length > 0,
          expiresAt: decision.newCode ? expiry.expiresAt : before.expires_at!,
        };
      } catch (err) {
        if (err instanceof ApiError && err.code === 'sms_07') {
          throw new OtpError(402, 'otp_insufficient_credits', {
            state: current.state,
            hint: `Sending a code by ${p.channel} costs credits and the balance does not cover it: add credits, then send again.`,
            next: ['POST /credits/consult', path],
            code: 'sms_07',
          });
        }
        throw err;
      }
    }, accountId);
    if (!attempt) continue;

    const [outcome] = await ctx.sharedDispatch.dispatch(attempt.messageIds);
    const refused = outcome !== undefined && !outcome.outcome.ok && outcome.outcome.permanent;
    // A code to an opted-out number is recorded, never sent: its stored text is masked at once too.
    const final = outcome?.outcome.ok === true || refused || attempt.optedOut;
    if (final) {
      await grouped.run(async (trx) => {
        await maskSentText(
          trx,
          attempt.messageIds,
          renderText(p.channel, template, company, '*'.repeat(attempt.code.length)),
        );
        if (!refused) return;
        // Nothing reached the user: put the verification back as it was (unless it moved on since), so no state claims a code went out.
        await restore(trx, attempt.before);
        if (attempt.startId !== null) await forgetStart(trx, attempt.startId);
        await uncountDailySend(trx, dayKey, attempt.decision.newCode);
      }, accountId);
    }
    if (outcome && !outcome.outcome.ok) {
      if (refused) {
        const state = effectiveState(attempt.before, now);
        throw new OtpError(502, 'otp_send_failed', {
          state,
          hint: `The carrier refused the ${p.channel} message to this number; it was not charged and the verification is as before. Check the number or try another channel.`,
          next: [path],
        });
      }
      warnings.push('The carrier did not take the code at once: it is queued and will be retried.');
    }
    return {
      status: attempt.decision.status,
      body: {
        ...sentAnswer(ctx, attempt.decision, attempt.before.attempts_remaining, attempt.expiresAt, warnings),
        message: `${ACTION_MESSAGES[attempt.decision.action]} by ${p.channel}`,
        ...(p.code_show === 1 ? { code: attempt.code } : {}),
      },
      messageIds: attempt.messageIds,
    };
  }
  throw new Error('OTP transition kept conflicting');
}

/** The answer of a send (real or sandbox): the pending state it leaves, with the attempts the code has. */
export function sentAnswer(
  ctx: WithConfig,
  decision: CreateDecision,
  attemptsBefore: number | null,
  expiresAt: number,
  warnings: string[],
) {
  const resendIn = ctx.config.OTP_RESEND_COOLDOWN_SECONDS;
  return {
    success: true,
    state: 'pending' as OtpState,
    action: decision.action,
    hint:
      `Ask the user for the code and check it with POST /v2/otp/verify before expires_at. ${ATTEMPTS} wrong codes lock it` +
      (decision.newCode ? '' : ` (${attemptsBefore} left)`) +
      (resendIn > 0 ? `; a resend is possible in ${resendIn} s.` : '.'),
    next: nextFor('pending', resendIn),
    expires_at: formatLocal(expiresAt),
    attempts_remaining: decision.newCode ? ATTEMPTS : attemptsBefore,
    resend_available_in: resendIn,
    ...(warnings.length > 0 ? { warning: warnings.join(' ') } : {}),
  };
}

/** The account's own list of countries (mensajero otp settings), when it has one. */
export function checkCountryAllowed(caller: { allowedCountries: string | null }, countryCode: string): void {
  if (caller.allowedCountries && !caller.allowedCountries.split(',').includes(countryCode)) {
    throw new OtpError(403, 'otp_country_blocked', {
      hint: `This account sends codes only to country codes ${caller.allowedCountries}; the operator changes it with mensajero otp settings.`,
      next: [],
    });
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
  if (refused === 'number') {
    const nanp = p.country_code === '1' ? ` +1 numbers only of ${ctx.config.NANP_ALLOWED_REGIONS}.` : '';
    throw new OtpError(400, 'otp_number_unsupported', {
      hint: `Codes go only to mobile or geographic numbers of the country's plan: not to premium-rate, toll-free or other non-geographic ranges, nor to numbers the plan does not have.${nanp}`,
      next: [],
      field: 'phone_number',
    });
  }
}

/**
 * A round just locked: counted for the number today (the top-level account
 * with its sub-accounts). From the day's OTP_LOCKS_BEFORE_COOLDOWN-th lock the
 * rotation cooldown starts. Before it, locked + code_rotate gives a new round
 * at once, as the spec's table says: the daily round cap bounds the guesses.
 */
async function countLock(ctx: WithConfig, trx: Executor, key: NumberKey, id: number, now: number): Promise<void> {
  const { rootAccountId } = await otpCaller(trx, key.accountId);
  const locks = await countDailyLock(trx, {
    rootAccountId,
    countryCode: key.countryCode,
    phoneNumber: key.phoneNumber,
    day: formatLocalDate(now),
  });
  if (locks >= ctx.config.OTP_LOCKS_BEFORE_COOLDOWN) await startLockCooldown(trx, id, now);
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
function dailyLimit(state: OtpState, caps: { rounds: number; sends: number }, now: number): OtpError {
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
async function checkAndRecordStart(
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

/** Writes back the verification as it was before a send the carrier refused. */
async function restore(db: Executor, before: Verification): Promise<void> {
  const {
    state,
    round,
    code_hash,
    code_enc,
    code_format,
    code_length,
    attempts_remaining,
    expires_at,
    last_sent_at,
    channel,
    verified_at,
  } = before;
  await applyIfUnchanged(db, before.id, before.version + 1, {
    state,
    round,
    code_hash,
    code_enc,
    code_format,
    code_length,
    attempts_remaining,
    expires_at,
    last_sent_at,
    channel,
    verified_at,
    updated_at: Date.now(),
  });
}

/** POST /v2/otp/verify. */
export async function verifyCode(
  ctx: Pick<AppContext, 'config' | 'db' | 'secrets' | 'groupCommit'>,
  key: NumberKey,
  typed: string,
): Promise<OtpReply> {
  const cooldown = ctx.config.OTP_RESEND_COOLDOWN_SECONDS;
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const now = Date.now();
    const row = await findVerification(ctx.db.kysely, key);
    const current = view(row, now, cooldown);
    if (current.state !== 'pending') throw verifyRefusal(current.state, current.expires_at);
    const { id, code_hash } = row!;
    if (codeMatches(ctx.secrets.otpHmac, id, typed, code_hash)) {
      if (!(await ctx.groupCommit.run((trx) => markVerified(trx, id, code_hash!, now), key.accountId))) continue;
      return {
        status: 200,
        body: {
          success: true,
          state: 'verified',
          action: 'verified',
          message: 'The code is correct: the number is verified',
          hint: 'Nothing else to do for this number. POST /v2/otp starts a new verification when one is needed.',
          next: [],
        },
      };
    }
    const taken = await ctx.groupCommit.run(async (trx) => {
      const t = await takeAttempt(trx, id, code_hash!, now);
      if (t) await countFailure(trx, key.accountId);
      if (t?.state === 'locked') await countLock(ctx, trx, key, id, now);
      return t;
    }, key.accountId);
    if (!taken) continue;
    if (taken.state === 'locked') throw maxAttempts(current.expires_at);
    const left = taken.attempts_remaining;
    throw new OtpError(401, 'otp_incorrect_code', {
      state: 'pending',
      hint: `The code does not match. ${left} attempt${left === 1 ? '' : 's'} left: ask the user to check the latest code received and try again.`,
      next: nextFor('pending', current.resend_available_in),
      expires_at: current.expires_at,
      attempts_remaining: left,
      resend_available_in: current.resend_available_in,
    });
  }
  throw new Error('OTP verify kept conflicting');
}

const STATE_MESSAGES: Record<OtpState, string> = {
  none: 'No active verification for this number',
  pending: 'A code was sent and waits for verification',
  verified: 'The number is verified',
  expired: 'The code expired',
  locked: 'The verification is locked after too many wrong codes',
};

/** GET /v2/otp/status: reads only. */
export async function readStatus(ctx: DbAndConfig, key: NumberKey): Promise<OtpReply> {
  const current = view(await findVerification(ctx.db.kysely, key), Date.now(), ctx.config.OTP_RESEND_COOLDOWN_SECONDS);
  return {
    status: 200,
    body: {
      success: true,
      state: current.state,
      message: STATE_MESSAGES[current.state],
      hint: hintFor(current.state, current.resend_available_in),
      next: nextFor(current.state, current.resend_available_in),
      expires_at: current.expires_at,
      attempts_remaining: current.attempts_remaining,
      resend_available_in: current.resend_available_in,
    },
  };
}

/** DELETE /v2/otp: any state → none, nothing sent. */
export async function deleteVerification(ctx: WithDb, key: NumberKey): Promise<OtpReply> {
  await resetToNone(ctx.db.kysely, key, Date.now());
  return {
    status: 200,
    body: {
      success: true,
      state: 'none',
      action: 'deleted',
      message: 'The verification was deleted; nothing was sent',
      hint: 'Any code sent before no longer works. POST /v2/otp sends a new one when needed.',
      next: [PATHS.send],
    },
  };
}

/**
 * The previous OTP API's reset without a new code: a pending or locked code
 * gets its 7 attempts back and stays valid until its expiry. Other states
 * answer like verify (404 none, 409 verified, 410 expired). Fresh attempts are
 * a new round of guesses at the same code, so they count as one of the
 * number's rounds today (429 otp_daily_limit) and wait out a lock cooldown
 * like a rotation: resetting again and again never gives unlimited guesses.
 */
export async function restoreAttempts(
  ctx: Pick<AppContext, 'config' | 'groupCommit'>,
  key: NumberKey,
): Promise<OtpReply> {
  const caps = { rounds: ctx.config.OTP_DAILY_ROUNDS_PER_NUMBER, sends: ctx.config.OTP_DAILY_SENDS_PER_NUMBER };
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const now = Date.now();
    const current = await ctx.groupCommit.run(async (trx) => {
      const row = await findVerification(trx, key);
      const current = view(row, now, ctx.config.OTP_RESEND_COOLDOWN_SECONDS);
      if (current.state !== 'pending' && current.state !== 'locked')
        throw verifyRefusal(current.state, current.expires_at);
      checkLockCooldown(ctx, row!, current.state, now);
      if (
        !(await applyIfUnchanged(trx, row!.id, row!.version, {
          state: 'pending',
          attempts_remaining: ATTEMPTS,
          updated_at: now,
        }))
      )
        return undefined;
      const { rootAccountId } = await otpCaller(trx, key.accountId);
      const dayKey: DayKey = {
        rootAccountId,
        countryCode: key.countryCode,
        phoneNumber: key.phoneNumber,
        day: formatLocalDate(now),
      };
      if (!(await countDailyRound(trx, dayKey, caps.rounds))) throw dailyLimit(current.state, caps, now);
      return current;
    }, key.accountId);
    if (!current) continue;
    return {
      status: 200,
      body: {
        success: true,
        state: 'pending',
        message: `The code has ${ATTEMPTS} attempts again`,
        hint: hintFor('pending', current.resend_available_in),
        next: nextFor('pending', current.resend_available_in),
        expires_at: current.expires_at,
        attempts_remaining: ATTEMPTS,
      },
    };
  }
  throw new Error('OTP reset kept conflicting');
}
