import type { AppContext, WithConfig } from '../../context.js';
import type { Executor } from '../../db/engine.js';
import { Refusal } from '../../messaging/refusal.js';
import { formatLocal, formatLocalDate } from '../../lib/time.js';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { writeSend, type PendingSend, type SendContext } from '../../messaging/send.js';
import { codeDigest, generateCode, sealCode, unsealCode } from './codes.js';
import { OtpError } from './errors.js';
import {
  ATTEMPTS,
  decideCreate,
  effectiveState,
  expiryFor,
  nextFor,
  PATHS,
  type CreateDecision,
  type OtpState,
} from './machine.js';
import type { CreateParams } from './params.js';
import { maskSentText } from '../../messaging/masked-text.js';
import {
  applyIfUnchanged,
  countDailySend,
  ensureVerification,
  allHandedOver,
  forgetStart,
  otpCaller,
  uncountDailySend,
  type DayKey,
  type NumberKey,
  type Verification,
} from './store.js';
import { checkMessage, isStandardText, renderText } from './text.js';
import { checkPrefixOpen, countNewCode, pumpingPrefix } from './pumping.js';
import { familyRules } from '../../messaging/accept-rules.js';
import {
  channelText,
  checkAndRecordStart,
  checkCountryAllowed,
  checkLockCooldown,
  checkNumber,
  dailyLimit,
  MAX_TRIES,
  view,
  type OtpReply,
} from './checks.js';

/**
 * The OTP service, the feature's public surface: sending a code here; the
 * checks every transition shares in checks.ts; verify, status, delete and
 * the previous API's reset in verify.ts.
 */
export { channelText, checkCountryAllowed, checkLockCooldown, checkNumber, view, type OtpReply } from './checks.js';
export { deleteVerification, readStatus, restoreAttempts, verifyCode } from './verify.js';
export { listBlocks, removeBlock, type BlockView } from './pumping.js';

const ACTION_MESSAGES: Record<CreateDecision['action'], string> = {
  created: 'A verification code was sent',
  resent: 'The pending code was sent again',
  restarted: 'A new verification code was sent',
};

type SendCodeContext = SendContext & Pick<AppContext, 'secrets' | 'sendRules'>;

/** What one try of a send wrote, for the dispatch after its commit. */
interface Attempt {
  sending: PendingSend;
  before: Verification;
  decision: CreateDecision;
  code: string;
  startId: number | null;
  messageIds: number[];
  optedOut: boolean;
  expiresAt: number;
}

/** What sendCode's tries share. */
interface CodeSend {
  accountId: number;
  p: CreateParams;
  key: NumberKey;
  dayKey: DayKey;
  caller: Awaited<ReturnType<typeof otpCaller>>;
  company: string;
  template: string;
  expiry: ReturnType<typeof expiryFor>;
  now: number;
  /** The pumping guard's prefix of the number. */
  prefix: string;
}

/** POST /v2/otp: create, resend or restart, then send the code through the messaging pipeline. */
export async function sendCode(ctx: SendCodeContext, accountId: number, p: CreateParams): Promise<OtpReply> {
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
  checkCountryAllowed(caller, p.country_code, (await familyRules(ctx, accountId)).countries);
  const prefix = pumpingPrefix(ctx.config, p.country_code, p.phone_number);
  // Read before the group commit: a refusal inside it would have its whole batch run again with savepoints.
  await checkPrefixOpen(ctx.db.kysely, caller.rootAccountId, prefix, 'none', now);

  const { company, template, warnings } = channelText(p, PATHS.send);
  const expiry = expiryFor(p.expiration_date, now, PATHS.send);
  if (expiry.reduced) warnings.push('expiration_date is more than 3 days ahead: it was reduced to 3 days.');
  const send: CodeSend = { accountId, p, key, dayKey, caller, company, template, expiry, now, prefix };

  // Every write runs through the process's group commit (shared with /sms/send):
  // concurrent creates and verifies share one COMMIT, each in its own savepoint.
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const attempt = await ctx.groupCommit.run((trx) => writeAttempt(trx, ctx, send), accountId);
    if (!attempt) continue;
    await settleAttempt(ctx, send, attempt, warnings);
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

/**
 * One try of a send, in the group commit's transaction: the transition (undefined when the verification changed
 * meanwhile: the caller tries again), the daily and hourly counts, and the code's message, to be handed over by the
 * shared dispatch once committed.
 */
async function writeAttempt(
  trx: Transaction<Database>,
  ctx: SendCodeContext,
  { accountId, p, key, dayKey, caller, company, template, expiry, now, prefix }: CodeSend,
): Promise<Attempt | undefined> {
  const before = await ensureVerification(trx, key, now);
  const current = view(before, now, ctx.config.OTP_RESEND_COOLDOWN_SECONDS);
  const decision = decideCreate(current.state, p.code_rotate, current.resend_available_in, current);
  if (decision.newCode) checkLockCooldown(ctx, before, current.state, now);
  const code = decision.newCode
    ? generateCode(p.code_format, p.code_length)
    : unsealCode(ctx.secrets.otpHmac, before.code_enc!);
  if (p.channel !== 'chatapp' && p.message !== undefined)
    checkMessage(p.channel, p.message, company, code.length, PATHS.send);
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
        pumping_counted: p.code_show === 1 ? 0 : 1,
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
    const sending = await writeSend(
      trx,
      ctx,
      [
        {
          accountId,
          channel: p.channel,
          source: 'otp',
          recipients: [{ countryCode: p.country_code, number: p.country_code + p.phone_number }],
          text: renderText(p.channel, template, company, code),
          standardOtpText: isStandardText(template),
          trafficClass: 'otp',
          // A code that cannot be used any more is not worth sending.
          validUntil: decision.newCode ? expiry.expiresAt : Number(before.expires_at),
        },
      ],
      'awaited',
    );
    const [sent] = sending.results;
    // A code_show code is a test: it never counts toward the pumping guard.
    if (decision.newCode && p.code_show !== 1)
      await countNewCode(trx, ctx.config, { accountId, root: caller.rootAccountId, prefix }, now);
    return {
      sending,
      before,
      decision,
      code,
      startId,
      messageIds: sent.messageIds,
      optedOut: sent.optedOut.length > 0,
      expiresAt: decision.newCode ? expiry.expiresAt : before.expires_at!,
    };
  } catch (err) {
    if (err instanceof Refusal && err.code === 'insufficient_credits') {
      throw new OtpError(402, 'otp_insufficient_credits', {
        state: current.state,
        hint: `Sending a code by ${p.channel} costs credits and the balance does not cover it: add credits, then send again.`,
        next: ['POST /credits/consult', PATHS.send],
        code: 'sms_07',
      });
    }
    if (err instanceof Refusal && err.code === 'daily_spend_limit') {
      throw new OtpError(402, 'otp_spend_limit', {
        state: current.state,
        hint: 'The account has spent its daily spending limit (Mexico City day): no code can be sent before midnight unless the operator raises the limit.',
        next: [],
        code: 'sms_44',
      });
    }
    throw err;
  }
}

/**
 * After the commit: hands the code over and waits for the carrier's answer. Sent (or refused, or held back by an
 * opt-out), the stored text is masked; refused, the verification is put back as it was and 502 thrown; a transient
 * failure leaves it queued with a warning.
 */
async function settleAttempt(ctx: SendCodeContext, send: CodeSend, attempt: Attempt, warnings: string[]) {
  const { p, template, company, dayKey, now } = send;
  const handing = attempt.sending.dispatch();
  let timer: NodeJS.Timeout | undefined;
  const answered = await Promise.race([
    handing,
    new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), AWAIT_HANDOVER_MS))),
  ]).finally(() => clearTimeout(timer));
  if (answered === null) {
    // Still waiting for its turn at the carrier: answered now, its text masked once the carrier takes it.
    warnings.push('The carrier did not take the code at once: it is queued and will be retried.');
    ctx.worker.track(
      handing.then(async ([late]) => {
        if (late?.outcome.ok || (late && !late.outcome.ok && late.outcome.permanent))
          await ctx.groupCommit.run(
            (trx) =>
              maskSentText(
                trx,
                attempt.messageIds,
                renderText(p.channel, template, company, '*'.repeat(attempt.code.length)),
              ),
            send.accountId,
          );
      }),
    );
    return;
  }
  const [outcome] = answered;
  const refused = outcome !== undefined && !outcome.outcome.ok && outcome.outcome.permanent;
  // Left to the process that holds its carrier's bind (parked): that process takes it within a poll or two.
  const handedElsewhere =
    outcome !== undefined && !outcome.outcome.ok && outcome.outcome.elsewhere !== undefined
      ? await handedOverWithin(ctx, attempt.messageIds, PARKED_WAIT_MS)
      : false;
  // A code to an opted-out number is recorded, never sent: its stored text is masked at once too.
  const final = outcome?.outcome.ok === true || refused || attempt.optedOut || handedElsewhere;
  if (final) {
    await ctx.groupCommit.run(async (trx) => {
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
    }, send.accountId);
  }
  if (outcome && !outcome.outcome.ok && !handedElsewhere) {
    if (refused) {
      const state = effectiveState(attempt.before, now);
      throw new OtpError(502, 'otp_send_failed', {
        state,
        hint: `The carrier refused the ${p.channel} message to this number; it was not charged and the verification is as before. Check the number or try another channel.`,
        next: [PATHS.send],
      });
    }
    warnings.push('The carrier did not take the code at once: it is queued and will be retried.');
  }
}

/**
 * How long a code left to another process's bind is waited for, so that its stored text is masked once that
 * process has handed it over (the parked hand-off polls every WORKER_POLL_MS); past it the answer warns as for a
 * transient failure.
 */
const PARKED_WAIT_MS = 3_000;

/**
 * How long a send waits for the carrier's answer before it answers with the code queued: an OTP code goes first in
 * its carrier's line, so it waits that long only behind a carrier that does not answer.
 */
const AWAIT_HANDOVER_MS = 5_000;

async function handedOverWithin(ctx: SendCodeContext, messageIds: number[], waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (await allHandedOver(ctx.db.kysely, messageIds)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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
