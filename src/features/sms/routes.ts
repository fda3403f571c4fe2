import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { WithDb } from '../../context.js';
import { redirectTarget } from '../../http/redirect.js';
import { ApiError, ok } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { bool, jsonSchema } from '../../http/fields.js';
import { parse } from '../../http/validate.js';
import { SendBody } from './schemas.js';
import { clickShortLink, followReadLink, sendSms, shortLinkTarget, type SendContext } from './service.js';
import { textRulesOf } from './rules.js';
import type { AuthenticatedAccount } from '../../accounts/index.js';

defineMessages({ short_link_01: 'No such link', tracking_01: 'No such link' });

const ShowCampaignId = z.object({ showCampaignId: bool('sms_42').optional() });

const Reply = z.object({
  success: z.boolean(),
  message: z.literal('sent_messages'),
  status: z.number(),
  code: z.enum(['sms_11', 'sms_19']),
  total_messages: z.number(),
  references: z.array(z.object({ reference: z.string(), number: z.string() })),
  credit: z.number(),
  campaignId: z.number().optional(),
});

export function smsRoutes(api: FastifyInstance, ctx: SendContext): void {
  const handle = async (account: AuthenticatedAccount, input: unknown, query: unknown) => {
    const body = parse(SendBody, input, 'sms_04');
    const show = body.showCampaignId ?? parse(ShowCampaignId, query ?? {}).showCampaignId ?? false;
    const { code, campaignId, ...result } = await sendSms(ctx, account.id, body, textRulesOf(account));
    return ok(code, 'sent_messages', show ? { ...result, campaignId } : result);
  };
  const response = { 200: jsonSchema(Reply) };
  api.post(
    '/sms/send',
    {
      config: { sendLimited: true },
      schema: {
        tags: ['sms'],
        summary: 'Send an SMS or RCS message to up to 500 numbers',
        body: jsonSchema(SendBody),
        querystring: jsonSchema(ShowCampaignId),
        response,
      },
    },
    async (request) => handle(request.account, request.body, request.query),
  );
  api.get(
    '/sms/send',
    {
      config: { sendLimited: true },
      schema: {
        tags: ['sms'],
        summary: 'Send an SMS (query-string form; POST is preferred)',
        querystring: jsonSchema(SendBody),
        response,
      },
    },
    async (request) => handle(request.account, request.query, {}),
  );
}

/**
 * GET /s/{code}: the short link of a shorten_url send; counts the click and redirects. GET /r/{token}: the
 * read-confirmation link of an SMS or chat-app send; records the read and redirects.
 */
export function smsPublicRoutes(app: FastifyInstance, ctx: WithDb): void {
  app.get<{ Params: { token: string } }>(
    '/r/:token',
    {
      schema: {
        hide: true,
        tags: ['messages'],
        summary: 'Read-confirmation link: records the read and redirects',
        security: [],
        params: { type: 'object', properties: { token: { type: 'string' } } },
      },
    },
    async (request, reply) => {
      // HEAD (link previews, mail scanners) is not a read: it redirects without counting.
      const url = await followReadLink(ctx, request.params.token, request.method !== 'HEAD');
      if (!url) throw new ApiError(404, 'tracking_01');
      return reply.code(302).header('location', url).header('cache-control', 'no-store').send();
    },
  );
  app.get<{ Params: { code: string } }>(
    '/s/:code',
    {
      schema: {
        hide: true,
        tags: ['sms'],
        summary: 'Short link: counts the click and redirects (302)',
        security: [],
        params: { type: 'object', properties: { code: { type: 'string' } } },
      },
    },
    async (request, reply) => {
      const code = request.params.code;
      // HEAD (link previews, scanners) redirects without counting a click.
      const stored = /^[A-Za-z0-9_-]{1,32}$/.test(code)
        ? await (request.method === 'HEAD' ? shortLinkTarget : clickShortLink)(ctx.db.kysely, code)
        : undefined;
      const url = stored === undefined ? undefined : redirectTarget(stored);
      if (!url) throw new ApiError(404, 'short_link_01');
      return reply.code(302).header('location', url).header('cache-control', 'no-store').send();
    },
  );
}
