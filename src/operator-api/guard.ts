import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { ipAllowed, parseAllowList } from '../lib/ip-ranges.js';
import { authenticateOperatorToken, operatorApiEnabled, type OperatorToken } from './tokens.js';
import type { ApiActor } from './schemas.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The operator token of a request to /operator/v1/ (set by the operator API's guard). */
    operatorToken?: OperatorToken;
  }
}

const BEARER = /^Bearer ([\x21-\x7e]{1,200})$/;

/**
 * Every request to /operator/v1/, in this order: the address must be in OPERATOR_API_ALLOW_IP when it is set (403
 * op_address); each address has OPERATOR_API_PER_MINUTE requests a minute (429 rate_01), counted before the token
 * is checked so that guessing tokens is as slow; then the bearer token (401 op_token), except that with no unrevoked
 * token at all the API does not exist (404 not_found); a read-only token may only GET (403 op_read_only).
 */
export function operatorGuard(ctx: AppContext) {
  const allowed = ctx.config.OPERATOR_API_ALLOW_IP
    ? parseAllowList(ctx.config.OPERATOR_API_ALLOW_IP.split(',').filter((e) => e.trim() !== ''))
    : undefined;
  const limit = ctx.rateLimiter.named('operator-api', {
    points: ctx.config.OPERATOR_API_PER_MINUTE,
    durationSec: 60,
    code: 'rate_01',
  });
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (allowed && !ipAllowed(request.ip, allowed)) throw new ApiError(403, 'op_address');
    await limit.consume(`ip:${request.ip}`);
    const presented = BEARER.exec(request.headers.authorization ?? '')?.[1];
    const token = presented ? await authenticateOperatorToken(ctx.db.kysely, presented) : undefined;
    if (!token) {
      if (!(await operatorApiEnabled(ctx.db.kysely))) throw new ApiError(404, 'not_found');
      throw new ApiError(401, 'op_token', undefined, {}, { 'WWW-Authenticate': 'Bearer' });
    }
    if (token.readOnly && request.method !== 'GET' && request.method !== 'HEAD')
      throw new ApiError(403, 'op_read_only');
    request.operatorToken = token;
  };
}

/** Who a change through the API is recorded as: `token:NAME` from the request's address. */
export const actorOf = (request: FastifyRequest): ApiActor => ({
  actor: `token:${request.operatorToken!.name}`,
  address: request.ip,
});
