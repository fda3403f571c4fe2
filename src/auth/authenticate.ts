import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { AuthenticatedAccount } from '../accounts/store.js';
import { ApiError } from '../http/errors.js';
import { allowListAdmits } from './allow-list.js';
import { keyLookup } from './key-lookup.js';
import { accountForKeyId, checkToken, isLoginToken } from './token.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated account (set by the apikey hook on every API route). */
    account: AuthenticatedAccount;
  }
  interface FastifyContextConfig {
    /** Counts against the per-account message-sending rate limit. */
    sendLimited?: boolean;
  }
}

export const KEY_IN_URL = /[?&](apikey|token)=/i;

/**
 * The apikey hook. Each request gets the key and account as the database has
 * them now (src/auth/key-lookup.ts), so a rotated key or an archived account
 * stops working at once in every process.
 */
export function authenticate(ctx: Pick<AppContext, 'db' | 'secrets' | 'rateLimiter'>) {
  const accountForKey = keyLookup(ctx.db);
  return async function (request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (KEY_IN_URL.test(request.url)) {
      throw new ApiError(401, 'auth_05', 'API keys are refused in the URL: send the key in the apikey header');
    }
    let key = header(request, 'apikey');
    let account: AuthenticatedAccount | undefined;
    let viaToken = false;
    if (!key) {
      key = header(request, 'token');
      viaToken = key !== undefined;
      if (key) reply.header('Deprecation', 'true').header('Link', '<apikey>; rel="successor-version"');
    }
    if (!key) throw new ApiError(401, 'auth_05', 'Missing API key: send it in the apikey header');
    if (viaToken && isLoginToken(key)) {
      // A token of POST /auth in the token header (src/auth/token.ts).
      const check = checkToken(ctx.secrets.authToken, key, Date.now());
      if (!check.ok && check.reason === 'expired')
        throw new ApiError(401, 'auth_06', 'The token expired: get a new one with POST /auth');
      account = check.ok ? await accountForKeyId(ctx.db.kysely, check.keyId) : undefined;
      if (!account)
        throw new ApiError(
          401,
          'auth_05',
          'Invalid token, or its API key was rotated or its account archived: log in again with POST /auth',
        );
    } else {
      account = key.length <= 200 ? await accountForKey(key) : undefined;
    }
    if (!account) throw new ApiError(401, 'auth_05', 'Invalid or disabled API key');
    if (!allowListAdmits(account.allow_ips, request.ip)) throw new ApiError(403, 'auth_04');
    request.account = account;
    if (request.routeOptions.config.sendLimited)
      await ctx.rateLimiter.consume(account.rate_bucket, account.rate_limit_per_sec);
  };
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s && s.trim() !== '' ? s.trim() : undefined;
}
