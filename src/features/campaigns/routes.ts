import { CHANNELS } from '../../channels.js';
import type { AppContext } from '../../context.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ok } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { flag, integer, integerForms, jsonSchema, optionalText } from '../../http/fields.js';
import { parse } from '../../http/validate.js';
import { parseLocal } from '../../lib/time.js';
import { DEFAULT_LIMIT, listCampaigns, MAX_LIMIT } from './service.js';

defineMessages({
  campaigns_01: 'campaigns',
  campaigns_02: 'start_date must be YYYY-MM-DD or YYYY-MM-DD HH:mm:ss',
  campaigns_03: 'end_date must be YYYY-MM-DD or YYYY-MM-DD HH:mm:ss',
  campaigns_04: 'start_date is after end_date',
  campaigns_05: 'limit must be an integer from 1 to 100',
  campaigns_06: 'sandbox must be 0 or 1',
});

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A date bound in Mexico City time. A bare date covers its whole day, so
 * end_date 2026-03-10 includes every campaign of March 10; a date and time
 * is taken to the second (inclusive).
 */
const bound = (code: string, edge: 'start' | 'end') =>
  optionalText(code)
    .pipe(
      z
        .string()
        .optional()
        .transform((v, c) => {
          if (v === undefined) return null;
          const t = v.trim();
          const at = edge === 'end' && DATE_ONLY.test(t) ? parseLocal(`${t} 23:59:59`) : parseLocal(t);
          if (at === null) return (c.addIssue({ code: 'custom', message: code }), z.NEVER);
          return edge === 'end' ? at + 1000 : at;
        }),
    )
    .meta({ type: 'string', description: 'YYYY-MM-DD or YYYY-MM-DD HH:mm:ss, America/Mexico_City' });

export const CampaignsParams = z
  .object({
    start_date: bound('campaigns_02', 'start'),
    end_date: bound('campaigns_03', 'end'),
    sandbox: flag('campaigns_06').describe('1: only sandbox campaigns; 0 (default): only real ones'),
    limit: z
      .preprocess(
        (v) => (v === undefined || v === null || v === '' ? DEFAULT_LIMIT : v),
        integer('campaigns_05', 'campaigns_05'),
      )
      .pipe(z.number().min(1, { error: 'campaigns_05' }).max(MAX_LIMIT, { error: 'campaigns_05' }))
      .meta({ ...integerForms({ minimum: 1, maximum: MAX_LIMIT }), default: DEFAULT_LIMIT }),
  })
  .refine((p) => p.start_date === null || p.end_date === null || p.start_date < p.end_date, { error: 'campaigns_04' });

const Envelope = { success: z.boolean(), message: z.string(), status: z.number(), code: z.string() };
const Reply = z.object({
  ...Envelope,
  campaigns: z.array(
    z.object({
      id: z.number().int().describe('pass it to /reports/details as campaign_id'),
      name: z.string(),
      create_date: z.string().describe('YYYY-MM-DD HH:mm:ss, America/Mexico_City'),
      type: z.enum(CHANNELS).describe('the channel'),
      status: z.enum(['scheduled', 'sending', 'finished']),
    }),
  ),
});
const Failure = z.object(Envelope);

export function campaignsRoutes(api: FastifyInstance, ctx: AppContext) {
  const response = { 200: jsonSchema(Reply), 400: jsonSchema(Failure) };
  const handle = async (accountId: number, input: unknown) => {
    const p = parse(CampaignsParams, input, 'campaigns_02');
    const list = await listCampaigns(ctx.db.kysely, {
      accountId,
      sandbox: p.sandbox,
      from: p.start_date,
      to: p.end_date,
      limit: p.limit,
    });
    return ok('campaigns_01', 'campaigns', { campaigns: list });
  };
  const summary = "The account's campaigns, newest first";
  api.post(
    '/campaigns',
    { schema: { tags: ['reports'], summary, body: jsonSchema(CampaignsParams), response } },
    async (request) => handle(request.account.id, request.body),
  );
  api.get(
    '/campaigns',
    { schema: { tags: ['reports'], summary, querystring: jsonSchema(CampaignsParams), response } },
    async (request) => handle(request.account.id, request.query),
  );
}
