import type { AppContext, DbAndConfig, WithConfig, WithDb } from '../../context.js';
import type { Executor } from '../../db/engine.js';
import { formatLocalDate } from '../../lib/time.js';
import { codeMatches } from './codes.js';
import { OtpError } from './errors.js';
import { ATTEMPTS, hintFor, maxAttempts, nextFor, PATHS, verifyRefusal, type OtpState } from './machine.js';
import {
  applyIfUnchanged,
  countDailyLock,
  countDailyRound,
  countFailure,
  findVerification,
  markVerified,
  otpCaller,
  resetToNone,
  startLockCooldown,
  takeAttempt,
  type DayKey,
  type NumberKey,
} from './store.js';
import { checkLockCooldown, dailyLimit, MAX_TRIES, view, type OtpReply } from './checks.js';
import { countVerified, pumpingPrefix } from './pumping.js';

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
      const prefix = pumpingPrefix(ctx.config, key.countryCode, key.phoneNumber);
      const verified = await ctx.groupCommit.run(async (trx) => {
        const verified = await markVerified(trx, id, code_hash!, now);
        if (!verified) return false;
        if (verified.pumpingCounted) await countVerified(trx, ctx.config, { accountId: key.accountId, prefix }, now);
        return true;
      }, key.accountId);
      if (!verified) continue;
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
