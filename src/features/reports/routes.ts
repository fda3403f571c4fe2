import type { AppContext } from '../../context.js';
import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { ApiError, ok } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { flag, integer, integerForms, jsonSchema, text } from '../../http/fields.js';
import { parse } from '../../http/validate.js';
import { retentionCoversFrom } from '../../messaging/retention.js';
import { campaignDetails, findCampaign, localDay, reportJson } from './service.js';

defineMessages({
  report_01: 'start_date is required, as a real date YYYY-MM-DD',
  report_02: 'end_date is required, as a real date YYYY-MM-DD',
  report_03: 'start_date is after end_date',
  report_05: 'Too many report requests for this account: retry after the Retry-After seconds',
  report_06: 'sandbox must be 0 or 1',
  details_02: 'No campaign with that campaign_id (and sandbox flag) in this account',
  details_03: 'campaign_id is required, as a positive integer',
  details_04: 'sandbox must be 0 or 1',
});

const day = (code: string) =>
  text(code)
    .pipe(
      z.string().transform((v, c) => localDay(v.trim()) ?? (c.addIssue({ code: 'custom', message: code }), z.NEVER)),
    )
    .meta({ type: 'string', format: 'date', description: 'YYYY-MM-DD, America/Mexico_City' });

const GenerateBody = z
  .object({
    start_date: day('report_01'),
    end_date: day('report_02'),
    sandbox: flag('report_06').describe('1: only sandbox messages; 0 (default): only real ones'),
  })
  .refine((b) => b.start_date.start <= b.end_date.start, { error: 'report_03' })
  .meta({ required: ['start_date', 'end_date'] });

const DetailsBody = z
  .object({
    campaign_id: integer('details_03')
      .pipe(z.number().min(1, { error: 'details_03' }).max(Number.MAX_SAFE_INTEGER, { error: 'details_03' }))
      .meta(integerForms({ minimum: 1 })),
    sandbox: flag('details_04').describe('1 for a sandbox campaign'),
  })
  .meta({ required: ['campaign_id'] });

const str = z.string();
const ReportRow = z.object({
  name: str,
  created_date: str,
  reference: str,
  number: str,
  message: str,
  sent_date: str.describe('empty until sent'),
  status: str.describe('readable status: delivered, not delivered, …, scheduled, queued, sent, sandbox'),
  status_code: str.describe('delivery status code 0–12, empty until reported'),
  operator: str,
  type: str.describe('sms, rcs, chatapp, voice, otp, payment'),
});
const Envelope = { success: z.boolean(), message: z.string(), status: z.number(), code: z.string() };
const Failure = z.object(Envelope);
const GenerateReply = z.object({
  ...Envelope,
  covers_from: str
    .optional()
    .describe(
      'only when the operator prunes old messages (MESSAGES_KEEP_DAYS): the first Mexico City day YYYY-MM-DD whose messages are all still held; the report has none older',
    ),
  report: z.array(ReportRow),
});
const DetailsReply = z.object({
  ...Envelope,
  details: z.object({
    effectiveness: z.number(),
    totals: z.number(),
    delivered: z.number(),
    failed: z.number(),
    pending: z.number(),
    not_charged: z.number(),
  }),
});

export function reportsRoutes(api: FastifyInstance, ctx: AppContext) {
  const limit = ctx.rateLimiter.named('reports', {
    points: ctx.config.REPORTS_PER_MINUTE,
    durationSec: 60,
    code: 'report_05',
  });

  api.post(
    '/reports/generate',
    {
      schema: {
        tags: ['reports'],
        summary: 'Every message of the period (streamed, no paging)',
        body: jsonSchema(GenerateBody),
        response: { 200: jsonSchema(GenerateReply), 400: jsonSchema(Failure), 429: jsonSchema(Failure) },
      },
    },
    async (request, reply) => {
      const body = parse(GenerateBody, request.body);
      await limit.consume(request.account.id);
      const query = {
        accountId: request.account.id,
        sandbox: body.sandbox,
        from: body.start_date.start,
        to: body.end_date.end,
      };
      const covers = retentionCoversFrom(ctx.config, Date.now());
      const stream = Readable.from(reportJson(ctx.db.kysely, query, ctx.config.REPORTS_PAGE_ROWS, covers), {
        objectMode: true,
        highWaterMark: 1,
      });
      return reply.type('application/json; charset=utf-8').send(stream);
    },
  );

  api.post(
    '/reports/details',
    {
      schema: {
        tags: ['reports'],
        summary: 'Delivery figures of one campaign',
        body: jsonSchema(DetailsBody),
        response: { 200: jsonSchema(DetailsReply), 400: jsonSchema(Failure), 404: jsonSchema(Failure) },
      },
    },
    async (request) => {
      const body = parse(DetailsBody, request.body);
      const campaign = await findCampaign(ctx.db.kysely, request.account.id, body.campaign_id, body.sandbox);
      if (!campaign) throw new ApiError(404, 'details_02');
      return ok('details_01', 'campaign_details', {
        details: await campaignDetails(ctx.db.kysely, request.account.id, campaign.id),
      });
    },
  );
}
