import type { z } from 'zod';
import type { AppContext, WithDb } from '../../context.js';
import { toCredits } from '../../accounts/credits.js';
import { send, type SendContext } from '../../messaging/send.js';
import { OtpError } from '../otp/errors.js';
import { CreateBody, NumberQuery, parseOtp, VerifyBody } from '../otp/params.js';
import { channelText, checkNumber, deleteVerification, restoreAttempts, sendCode, verifyCode } from '../otp/service.js';
import { checkMessage, renderText } from '../otp/text.js';
import { renderScript, spell, type Template } from '../voice/scripts.js';
import { toGsm7 } from '../../text/gsm7.js';
import { channelOf, CheckParams, LEGACY_NAMES, ResendParams, ResetParams, StartParams } from './params.js';

/**
 * The previous OTP API as a thin layer over /v2/otp's service: every call
 * maps its parameters to v2 ones and calls the same functions (sendCode,
 * verifyCode, deleteVerification, restoreAttempts), so both APIs share one
 * state per number and every rule of the state machine: attempts,
 * cooldown, expiry, charges, abuse limits. Only the answer's shape differs.
 */
export type LegacyAnswer = Record<string, unknown>;

const DEFAULT_COUNTRY = '52';

/** Parses this API's own parameters; a problem is the OTP 400 with the field's name. */
function parseLegacy<S extends z.ZodType>(schema: S, input: unknown, path: string): z.output<S> {
  const result = schema.safeParse(input && typeof input === 'object' && !Array.isArray(input) ? input : {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue.path.map(String).join('.');
  if (issue.message === 'otp_missing_param')
    throw new OtpError(
      400,
      'otp_missing_param',
      { hint: `${field} is required.`, next: [path], field },
      `A required parameter is missing: ${field}`,
    );
  throw new OtpError(
    400,
    'otp_invalid_param',
    { hint: `Check ${field}.`, next: [path], field },
    `A parameter is invalid: ${field}`,
  );
}

/** Runs a v2 parse with the previous API's field names in its error. */
function v2<S extends z.ZodType>(schema: S, input: Record<string, unknown>, path: string): z.output<S> {
  try {
    return parseOtp(schema, input, path);
  } catch (err) {
    const field = err instanceof OtpError ? err.fields.field : undefined;
    if (err instanceof OtpError && field && LEGACY_NAMES[field]) {
      throw new OtpError(
        err.status,
        err.slug,
        { ...err.fields, field: LEGACY_NAMES[field] },
        err.message.replace(field, LEGACY_NAMES[field]),
      );
    }
    throw err;
  }
}

const numberOf = (input: { phone_number?: unknown; country_code?: unknown }) => ({
  phone_number: input.phone_number,
  country_code:
    input.country_code === undefined || input.country_code === null || input.country_code === ''
      ? DEFAULT_COUNTRY
      : input.country_code,
});

/**
 * A voice script of /voice/send as an OTP message: the script rendered with
 * a sentinel code, whose spelling becomes {{code}} (the OTP service spells
 * the real one), in GSM-7 as OTP messages are.
 */
function voiceMessage(template: Template): string {
  const sentinel = 'QXQX';
  return toGsm7(renderScript({ template, company: '{{company}}', code: sentinel })).replaceAll(
    spell(sentinel),
    '{{code}}',
  );
}

/** The v2 parameters of a start or resend. */
function sendParams(
  input: Record<string, unknown>,
  p: { voice: 0 | 1; whatsapp: 0 | 1; template?: Template; company?: string },
  path: string,
  rotate: boolean,
) {
  const channel = channelOf(p, path);
  return v2(
    CreateBody,
    {
      ...numberOf(input),
      channel,
      company: p.company,
      ...(channel === 'voice' ? { message: voiceMessage(p.template ?? 'a') } : {}),
      code_format: input.code_type,
      code_length: input.code_length,
      expiration_date: input.expiration_date,
      code_rotate: rotate,
    },
    path,
  );
}

/** number, credit and reference of the message that carried the code. */
async function sent(ctx: WithDb, messageIds: number[] | undefined, fallbackNumber: string): Promise<LegacyAnswer> {
  const row = messageIds?.length
    ? await ctx.db.kysely
        .selectFrom('messages')
        .select(['number', 'reference', 'price_units'])
        .where('id', '=', messageIds[0])
        .executeTakeFirst()
    : undefined;
  return {
    number: row?.number ?? fallbackNumber,
    credit: row ? toCredits(Number(row.price_units)) : 0,
    reference: row?.reference ?? null,
  };
}

/** start: a new code (a pending one is replaced, as with code_rotate), or with sandbox 1 only a sandbox record. */
export async function start(
  ctx: SendContext & Pick<AppContext, 'secrets' | 'sendRules'>,
  accountId: number,
  input: Record<string, unknown>,
  path: string,
): Promise<LegacyAnswer> {
  const p = parseLegacy(StartParams, input, path);
  const params = sendParams(input, p, path, true);
  if (p.sandbox === 1) return sandboxStart(ctx, accountId, params, path);
  const reply = await sendCode(ctx, accountId, params);
  return {
    success: true,
    message: String(reply.body.message),
    ...(await sent(ctx, reply.messageIds, params.country_code + params.phone_number)),
  };
}

/**
 * sandbox 1: the parameters, company and message are checked as for a real
 * start and a sandbox message is recorded (its reference, in the sandbox
 * report, counted against the daily sandbox limit); nothing is sent or
 * charged and the verification does not change.
 */
async function sandboxStart(
  ctx: SendContext,
  accountId: number,
  params: ReturnType<typeof sendParams>,
  path: string,
): Promise<LegacyAnswer> {
  checkNumber(ctx, params);
  const { company, template } = channelText(params, path);
  if (params.channel !== 'chatapp' && params.message !== undefined)
    checkMessage(params.channel, params.message, company, params.code_length, path);
  const number = params.country_code + params.phone_number;
  const [result] = await send(
    ctx,
    [
      {
        accountId,
        channel: params.channel,
        source: 'otp',
        recipients: [{ countryCode: params.country_code, number }],
        text: renderText(params.channel, template, company, '*'.repeat(params.code_length)),
        sandbox: true,
      },
    ],
    'queued',
  );
  return {
    success: true,
    message: 'Sandbox: the request is valid; nothing was sent or charged',
    number,
    credit: 0,
    reference: result.references[0].reference,
  };
}

/** check: verifies the code; success true only when it is right. */
export async function check(
  ctx: Pick<AppContext, 'config' | 'db' | 'secrets' | 'groupCommit'>,
  accountId: number,
  input: Record<string, unknown>,
  path: string,
): Promise<LegacyAnswer> {
  parseLegacy(CheckParams, input, path);
  const p = v2(VerifyBody, { ...numberOf(input), code: input.verification_code }, path);
  const reply = await verifyCode(ctx, { accountId, countryCode: p.country_code, phoneNumber: p.phone_number }, p.code);
  return { success: true, message: String(reply.body.message) };
}

/** resend: the pending code again (reset_code 0) or a new one (1), by the channel the flags choose. */
export async function resend(
  ctx: SendContext & Pick<AppContext, 'secrets' | 'sendRules'>,
  accountId: number,
  input: Record<string, unknown>,
  path: string,
): Promise<LegacyAnswer> {
  const p = parseLegacy(ResendParams, input, path);
  const params = sendParams(input, p, path, p.reset_code === 1);
  const reply = await sendCode(ctx, accountId, params);
  return {
    success: true,
    message: String(reply.body.message),
    ...(await sent(ctx, reply.messageIds, params.country_code + params.phone_number)),
  };
}

/** reset: reset_code 1 discards the code (as DELETE /v2/otp); 0 gives the pending code its attempts back. */
export async function reset(
  ctx: Pick<AppContext, 'config' | 'db' | 'groupCommit'>,
  accountId: number,
  input: Record<string, unknown>,
  path: string,
): Promise<LegacyAnswer> {
  const p = parseLegacy(ResetParams, input, path);
  const n = v2(NumberQuery, numberOf(input), path);
  const key = { accountId, countryCode: n.country_code, phoneNumber: n.phone_number };
  const reply = p.reset_code === 1 ? await deleteVerification(ctx, key) : await restoreAttempts(ctx, key);
  return { success: true, message: String(reply.body.message) };
}
