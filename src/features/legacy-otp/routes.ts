import type { FastifyInstance } from 'fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { asHttpError } from '../sms/refusals.js';
import { messageFor } from '../../http/codes.js';
import { jsonSchema } from '../../http/fields.js';
import { OtpError } from '../otp/errors.js';
import { CheckParams, ResendParams, ResetParams, StartParams } from './params.js';
import { check, resend, reset, start, type LegacyAnswer } from './service.js';
import { toXml } from './xml.js';

/**
 * The previous OTP API: /protected/{json|xml}/phones/verification/{start,
 * check, resend, reset}, over /v2/otp's service (./service.ts). It answers
 * in its old shape, as JSON or XML (text/xml) by the path's format.
 */
type Format = 'json' | 'xml';
const formatOf = (request: FastifyRequest): Format =>
  (request.params as { format?: string })?.format === 'xml' ? 'xml' : 'json';

function answer(reply: FastifyReply, format: Format, status: number, fields: LegacyAnswer) {
  reply.code(status);
  return format === 'xml'
    ? reply.type('text/xml; charset=utf-8').send(toXml(fields))
    : reply.type('application/json; charset=utf-8').send(JSON.stringify(fields));
}

/**
 * Errors in this API's shape (success false, message, status, code) and
 * format, authentication ones included. Clients read 401 as a bad API key,
 * so a wrong code (401 otp_incorrect_code on /v2/otp) answers 400 here;
 * every other status is the one /v2/otp gives (429 keeps Retry-After).
 */
function errorHandler(ctx: Pick<AppContext, 'log'>) {
  return (thrown: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) => {
    // A refusal of the send path (credits, the sandbox quota) keeps its /sms/send code.
    const error = asHttpError(thrown);
    const format = formatOf(request);
    if (error instanceof OtpError) {
      const status = error.status === 401 ? 400 : error.status;
      const { attempts_remaining, resend_available_in } = error.fields;
      reply.headers(error.headers);
      return answer(reply, format, status, {
        success: false,
        message: error.message,
        status,
        code: error.slug,
        ...(attempts_remaining !== undefined ? { attempts_remaining } : {}),
        ...(resend_available_in !== undefined ? { resend_available_in } : {}),
      });
    }
    if (error instanceof ApiError)
      return answer(reply.headers(error.headers), format, error.status, error.body(request.id));
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = status === 413 ? 'body_too_large' : status === 415 ? 'unsupported_media_type' : 'invalid_request';
      return answer(reply, format, status, { success: false, message: messageFor(code), status, code });
    }
    ctx.log.error({ err: error, reqId: request.id, route: request.routeOptions.url }, 'unexpected error');
    return answer(reply, format, 500, {
      success: false,
      message: messageFor('server_01'),
      status: 500,
      code: 'server_01',
      request_id: request.id,
    });
  };
}

const Params = z.object({ format: z.enum(['json', 'xml']).describe('json, or xml (answered as text/xml)') });
const Answer = z.object({
  success: z.boolean(),
  message: z.string(),
  number: z.string().optional().describe('start and resend: the number with its country code'),
  credit: z.number().optional().describe('start and resend: credits charged'),
  reference: z.string().nullable().optional().describe('start and resend: the message reference'),
});
const Failure = z.object({
  success: z.literal(false),
  message: z.string(),
  status: z.number(),
  code: z.string(),
  attempts_remaining: z.number().optional(),
  resend_available_in: z.number().optional(),
});
/** The same fields as JSON or, under /protected/xml/…, as XML. */
const both = (description: string, schema: Record<string, unknown>) => ({
  description,
  content: { 'application/json': { schema }, 'text/xml': { schema } },
});
const answers = {
  200: both('success', jsonSchema(Answer)),
  ...Object.fromEntries(
    [400, 401, 402, 403, 404, 409, 410, 429, 502].map((s) => [
      s,
      both("the error, with /v2/otp's slug as code", jsonSchema(Failure)),
    ]),
  ),
};

const ACTIONS = {
  start: {
    run: start,
    schema: StartParams,
    summary: 'Previous OTP API: send a new code (deprecated: use POST /v2/otp)',
    sends: true,
  },
  check: {
    run: check,
    schema: CheckParams,
    summary: 'Previous OTP API: check a code (deprecated: use POST /v2/otp/verify)',
    sends: false,
  },
  resend: {
    run: resend,
    schema: ResendParams,
    summary: 'Previous OTP API: send the code again, or a new one (deprecated: use POST /v2/otp)',
    sends: true,
  },
  reset: {
    run: reset,
    schema: ResetParams,
    summary: 'Previous OTP API: discard the code or clear its failed attempts (deprecated: use DELETE /v2/otp)',
    sends: false,
  },
} as const;

const fields = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export function legacyOtpRoutes(api: FastifyInstance, ctx: AppContext) {
  const onError = errorHandler(ctx);
  for (const [action, a] of Object.entries(ACTIONS)) {
    const url = `/protected/:format/phones/verification/${action}`;
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const { format } = request.params as { format: string };
      if (format !== 'json' && format !== 'xml') throw new ApiError(404, 'not_found');
      const input = request.method === 'GET' ? fields(request.query) : fields(request.body);
      return answer(reply, format, 200, await a.run(ctx, request.account.id, input, `${request.method} ${url}`));
    };
    const schema = {
      tags: ['otp (previous API)'],
      summary: a.summary,
      deprecated: true,
      params: jsonSchema(Params),
      response: answers,
    };
    api.post(
      url,
      { errorHandler: onError, config: { sendLimited: a.sends }, schema: { ...schema, body: jsonSchema(a.schema) } },
      handler,
    );
    // Some clients check a code with GET and query parameters.
    if (action === 'check')
      api.get(url, { errorHandler: onError, schema: { ...schema, querystring: jsonSchema(a.schema) } }, handler);
  }
}
