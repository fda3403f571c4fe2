import type { AppContext } from '../../context.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { apiKeyHash } from '../../accounts/keys.js';
import { allowListAdmits } from '../../auth/allow-list.js';
import { activeKey, signToken, TOKEN_TTL_SECONDS } from '../../auth/token.js';
import { ApiError, ok } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { jsonSchema, optionalText } from '../../http/fields.js';
import { parse } from '../../http/validate.js';
import { formatLocal } from '../../lib/time.js';

defineMessages({
  auth_06: 'The token expired: get a new one with POST /auth',
  auth_token_01: 'token_created',
});

const LoginBody = z.object({
  apikey: optionalText('auth_05').describe('the API key (the apikey header is accepted too)'),
});
const Envelope = { success: z.boolean(), message: z.string(), status: z.number(), code: z.string() };
const Reply = z.object({
  ...Envelope,
  token: z
    .string()
    .describe('send it in the token header; valid 24 hours, until the key is rotated or the account archived'),
  expires_in: z.number().int().describe('seconds'),
  expires_at: z.string().describe('YYYY-MM-DD HH:mm:ss, America/Mexico_City'),
});
const Failure = z.object(Envelope);

export function authLoginPublicRoutes(app: FastifyInstance, ctx: AppContext) {
  app.post(
    '/auth',
    {
      schema: {
        tags: ['authentication'],
        summary: 'Legacy login: exchange the API key for a token (deprecated: send the apikey header instead)',
        deprecated: true,
        security: [],
        body: jsonSchema(LoginBody),
        response: { 200: jsonSchema(Reply), 401: jsonSchema(Failure), 403: jsonSchema(Failure) },
      },
    },
    async (request) => {
      const header = request.headers.apikey;
      const key =
        parse(LoginBody, request.body ?? {}, 'auth_05').apikey?.trim() ||
        (typeof header === 'string' ? header.trim() : undefined);
      const caller = key && key.length <= 200 ? await activeKey(ctx.db.kysely, apiKeyHash(key)) : undefined;
      if (caller === undefined)
        throw new ApiError(
          401,
          'auth_05',
          key ? 'Invalid or disabled API key' : 'Missing API key: send apikey in the body',
        );
      // As on every API route: the key does not even say it is valid from outside the allow-list.
      if (!allowListAdmits(caller.allow_ips, request.ip)) throw new ApiError(403, 'auth_04');
      const expiresAt = Math.floor(Date.now() / 1000) + TOKEN_TTL_SECONDS;
      return ok('auth_token_01', 'token_created', {
        token: signToken(ctx.secrets.authToken, caller.key_id, expiresAt),
        expires_in: TOKEN_TTL_SECONDS,
        expires_at: formatLocal(expiresAt * 1000),
      });
    },
  );
}
