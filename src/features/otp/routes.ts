import type { FastifyInstance } from 'fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { asHttpError } from '../sms/refusals.js';
import { jsonSchema } from '../../http/fields.js';
import { otpMetrics } from './metrics.js';
import { OtpError } from './errors.js';
import { sandboxSendCode } from './sandbox.js';
import { CreateBody, NumberQuery, parseOtp, VerifyBody } from './params.js';
import { deleteVerification, readStatus, sendCode, verifyCode, type OtpReply } from './service.js';

const State = z.enum(['none', 'pending', 'verified', 'expired', 'locked']);
const Envelope = {
  success: z.boolean(),
  state: State,
  message: z.string(),
  hint: z.string(),
  next: z.array(z.string()).describe('the paths that make sense now'),
  request_id: z.string(),
};
const Timing = {
  expires_at: z.string().nullable().describe('YYYY-MM-DD HH:mm:ss, America/Mexico_City'),
  attempts_remaining: z.number().int().nullable(),
  resend_available_in: z.number().int().describe('seconds'),
};
const SendReply = z.object({
  ...Envelope,
  action: z.enum(['created', 'resent', 'restarted']),
  ...Timing,
  warning: z.string().optional(),
  code: z.string().optional().describe('only with code_show 1, never in sandbox'),
  sandbox: z.boolean().optional().describe('true when sandbox was asked: nothing was sent, charged or stored'),
});
const VerifyReply = z.object({ ...Envelope, action: z.literal('verified') });
const StatusReply = z.object({ ...Envelope, ...Timing });
const DeleteReply = z.object({ ...Envelope, action: z.literal('deleted') });
const ErrorReply = z.object({
  success: z.literal(false),
  state: State.optional(),
  error: z.string().describe('stable slug, e.g. otp_incorrect_code'),
  message: z.string(),
  hint: z.string(),
  next: z.array(z.string()),
  expires_at: z.string().nullable().optional(),
  attempts_remaining: z.number().int().nullable().optional(),
  resend_available_in: z.number().int().optional(),
  code: z.string().optional().describe('sms_07 with otp_insufficient_credits'),
  field: z.string().optional(),
  request_id: z.string(),
});
const errors = Object.fromEntries(
  [400, 401, 402, 403, 404, 409, 410, 429, 500, 502].map((s) => [s, jsonSchema(ErrorReply)]),
);

/** Common-layer body errors (broken JSON, media type, size) answered in the OTP envelope. */
const BODY_ERRORS = new Set(['invalid_json', 'unsupported_media_type', 'body_too_large']);

/**
 * The OTP endpoints answer in their own envelope, also for body-parsing
 * errors and unexpected ones (500 otp_internal). Authentication and the
 * common rate limit keep the common envelope (auth_05, auth_04, rate_01).
 */
function otpErrorHandler(ctx: Pick<AppContext, 'log'>) {
  return (thrown: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) => {
    // A refusal of the send path (the sandbox quota) keeps its /sms/send code, in this envelope.
    const error = asHttpError(thrown);
    const path = `${request.method} ${request.routeOptions.url}`;
    let answer: ApiError;
    if (error instanceof OtpError) answer = error;
    else if (error instanceof ApiError && !BODY_ERRORS.has(error.code)) answer = error;
    else if (
      error instanceof ApiError ||
      (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
    ) {
      const status = error instanceof ApiError ? error.status : error.statusCode!;
      answer = new OtpError(
        status,
        'otp_invalid_param',
        {
          hint: 'Send the parameters as a JSON object (Content-Type: application/json) or as form fields.',
          next: [path],
        },
        error.message,
      );
    } else {
      ctx.log.error({ err: error, reqId: request.id, route: request.routeOptions.url }, 'unexpected error');
      answer = new OtpError(500, 'otp_internal', {
        hint: 'Retry later; if it persists, quote request_id to support.',
        next: [],
      });
    }
    return reply.code(answer.status).headers(answer.headers).send(answer.body(request.id));
  };
}

const REPLAY_WARNING =
  'This answer is a replay of its Idempotency-Key: the code shown with code_show 1 is never stored, so it is not repeated.';

/**
 * The answer; one that shows the code keeps a copy without it for replays of
 * its Idempotency-Key (the code is never stored).
 */
function send(reply: FastifyReply, request: FastifyRequest, r: OtpReply) {
  const body: Record<string, unknown> = { ...r.body, request_id: request.id };
  if (body.code !== undefined) {
    const { code: _shown, ...rest } = body;
    request.idempotentReplayBody = { ...rest, warning: [rest.warning, REPLAY_WARNING].filter(Boolean).join(' ') };
  }
  return reply.code(r.status).send(body);
}

const numberKey = (accountId: number, p: { country_code: string; phone_number: string }) => ({
  accountId,
  countryCode: p.country_code,
  phoneNumber: p.phone_number,
});

export function otpRoutes(api: FastifyInstance, ctx: AppContext) {
  otpMetrics(ctx);
  const errorHandler = otpErrorHandler(ctx);
  const tags = ['otp'];

  api.post(
    '/v2/otp',
    {
      errorHandler,
      config: { sendLimited: true },
      schema: {
        tags,
        summary: 'Send, resend or rotate a verification code',
        body: jsonSchema(CreateBody),
        response: { 200: jsonSchema(SendReply), 201: jsonSchema(SendReply), ...errors },
      },
    },
    async (request, reply) => {
      const p = parseOtp(CreateBody, request.body, 'POST /v2/otp');
      const answer = p.sandbox ? sandboxSendCode : sendCode;
      return send(reply, request, await answer(ctx, request.account.id, p));
    },
  );

  api.post(
    '/v2/otp/verify',
    {
      errorHandler,
      schema: {
        tags,
        summary: 'Check a verification code',
        body: jsonSchema(VerifyBody),
        response: { 200: jsonSchema(VerifyReply), ...errors },
      },
    },
    async (request, reply) => {
      const p = parseOtp(VerifyBody, request.body, 'POST /v2/otp/verify');
      return send(reply, request, await verifyCode(ctx, numberKey(request.account.id, p), p.code));
    },
  );

  api.get(
    '/v2/otp/status',
    {
      errorHandler,
      schema: {
        tags,
        summary: 'State of the verification of a number (no side effects)',
        querystring: jsonSchema(NumberQuery),
        response: { 200: jsonSchema(StatusReply), ...errors },
      },
    },
    async (request, reply) => {
      const p = parseOtp(NumberQuery, request.query, 'GET /v2/otp/status');
      return send(reply, request, await readStatus(ctx, numberKey(request.account.id, p)));
    },
  );

  api.delete(
    '/v2/otp',
    {
      errorHandler,
      schema: {
        tags,
        summary: 'Invalidate the verification of a number (sends nothing)',
        description: 'Parameters in the body; the query string is accepted too.',
        body: jsonSchema(NumberQuery),
        response: { 200: jsonSchema(DeleteReply), ...errors },
      },
    },
    async (request, reply) => {
      const body = request.body && typeof request.body === 'object' && !Array.isArray(request.body) ? request.body : {};
      const p = parseOtp(NumberQuery, { ...(request.query as object), ...body }, 'DELETE /v2/otp');
      return send(reply, request, await deleteVerification(ctx, numberKey(request.account.id, p)));
    },
  );
}
