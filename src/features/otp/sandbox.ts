import type { AppContext } from '../../context.js';
import { reserveSandboxQuota } from '../../messaging/sandbox.js';
import { decideCreate, expiryFor, PATHS } from './machine.js';
import type { CreateParams } from './params.js';
import {
  channelText,
  checkCountryAllowed,
  checkLockCooldown,
  checkNumber,
  sentAnswer,
  view,
  type OtpReply,
} from './service.js';
import { findVerification, otpCaller } from './store.js';
import { checkMessage } from './text.js';
import { familyRules } from '../../messaging/accept-rules.js';

/**
 * POST /v2/otp with sandbox (the official assistant-tool server sends it):
 * every check of a real send runs (parameters, number, the account's
 * countries, company and message, the state table with its cooldown and
 * lock) and the answer is the one the real request would get, but the
 * verification is only read: no code, no message, no charge, no event, and
 * nothing toward the number's caps (daily rounds and sends, the hourly
 * limit, cooldowns). The one thing counted is the account's daily sandbox
 * limit (429 sms_17), so free requests stay bounded.
 */
export async function sandboxSendCode(ctx: AppContext, accountId: number, p: CreateParams): Promise<OtpReply> {
  const path = PATHS.send;
  const now = Date.now();
  checkNumber(ctx, p);
  checkCountryAllowed(
    await otpCaller(ctx.db.kysely, accountId),
    p.country_code,
    (await familyRules(ctx, accountId)).countries,
  );
  const { company, warnings } = channelText(p, path);
  const expiry = expiryFor(p.expiration_date, now, path);
  if (expiry.reduced) warnings.push('expiration_date is more than 3 days ahead: it would be reduced to 3 days.');

  const key = { accountId, countryCode: p.country_code, phoneNumber: p.phone_number };
  const row = await findVerification(ctx.db.kysely, key);
  const current = view(row, now, ctx.config.OTP_RESEND_COOLDOWN_SECONDS);
  const decision = decideCreate(current.state, p.code_rotate, current.resend_available_in, current);
  if (decision.newCode && row) checkLockCooldown(ctx, row, current.state, now);
  const codeLength = decision.newCode || !row?.code_length ? p.code_length : row.code_length;
  if (p.channel !== 'chatapp' && p.message !== undefined) checkMessage(p.channel, p.message, company, codeLength, path);

  await ctx.groupCommit.run(
    (trx) => reserveSandboxQuota(trx, accountId, 1, ctx.config.SANDBOX_DAILY_LIMIT, now),
    accountId,
  );
  const expiresAt = decision.newCode ? expiry.expiresAt : row!.expires_at!;
  return {
    status: decision.status,
    body: {
      ...sentAnswer(ctx, decision, current.attempts_remaining, expiresAt, warnings),
      sandbox: true,
      message: `Sandbox: the request is valid and a code would be ${decision.newCode ? 'sent' : 'sent again'} by ${p.channel}; nothing was sent, charged or stored`,
    },
  };
}
