import type { AppContext } from '../context.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { defineMessages } from '../http/codes.js';
import { ok } from '../http/errors.js';
import { jsonSchema, text } from '../http/fields.js';
import { parse } from '../http/validate.js';
import { webhookAddLimit } from '../http/rate-limit.js';
import { formatLocal } from '../lib/time.js';
import { addWebhook, changeStatus, findWebhook, removeWebhook, urlIsWellFormed } from './service.js';

defineMessages({
  webhook_01: 'webhook_data',
  add_webhook_01: 'url_added_success',
  add_webhook_02: 'url is required',
  add_webhook_03:
    'url must be a well-formed http or https URL of a public host (at most 2048 characters, no user:password)',
  add_webhook_04: 'status is required',
  add_webhook_05: "status must be '0' or '1'",
  add_webhook_06: 'The URL failed the registration check: it must answer a GET within 5 seconds with anything but 404',
  add_webhook_07: 'Saving failed: the account was closed during the registration check',
  add_webhook_08: 'Saving failed: the webhook was changed by another request during the registration check; retry',
  status_webhook_01: 'webhook_status_updated',
  status_webhook_02: 'status is required',
  status_webhook_03: "status must be '0' or '1'",
  status_webhook_04: 'Update failed: no webhook is registered',
  delete_webhook_01: 'webhook_deleted',
});

/** '0' or '1' as text or number; '' counts as missing. */
const status = (missing: string, invalid: string) =>
  z.preprocess((v) => (v === '' ? undefined : v), text(missing, invalid)).pipe(z.enum(['0', '1'], { error: invalid }));

const AddBody = z.object({
  url: z
    .preprocess((v) => (typeof v === 'string' ? v.trim() || undefined : v), text('add_webhook_02', 'add_webhook_03'))
    .pipe(z.string().refine(urlIsWellFormed, { error: 'add_webhook_03' })),
  status: status('add_webhook_04', 'add_webhook_05'),
});
const StatusBody = z.object({ status: status('status_webhook_02', 'status_webhook_03') });
const Empty = z.object({});

const Envelope = { success: z.boolean(), message: z.string(), status: z.number(), code: z.string() };
const GetReply = z.object({
  ...Envelope,
  result: z.object({
    url: z.string().nullable(),
    status: z.enum(['0', '1']).nullable(),
    disabled_reason: z
      .string()
      .optional()
      .describe('only when deliveries disabled the webhook after days of failures (beyond the spec)'),
    disabled_at: z.string().optional(),
  }),
});
const PlainReply = z.object(Envelope);

export function webhooksRoutes(api: FastifyInstance, ctx: AppContext) {
  const tags = ['webhooks'];
  api.post(
    '/webhook/get',
    {
      schema: {
        tags,
        summary: 'The registered webhook (url and status; null when none)',
        body: jsonSchema(Empty),
        response: { 200: jsonSchema(GetReply) },
      },
    },
    async (request) => {
      const hook = await findWebhook(ctx.db.kysely, request.account.id);
      return ok('webhook_01', hook ? 'webhook_data' : 'no_webhook', {
        result: {
          url: hook?.url ?? null,
          status: hook ? (String(hook.status) as '0' | '1') : null,
          ...(hook?.disabled_at
            ? { disabled_reason: hook.disabled_reason ?? '', disabled_at: formatLocal(hook.disabled_at) }
            : {}),
        },
      });
    },
  );

  api.post(
    '/webhook/add',
    {
      schema: {
        tags,
        summary: 'Register or replace the webhook after a registration check',
        body: jsonSchema(AddBody),
        response: { 200: jsonSchema(PlainReply) },
      },
    },
    async (request) => {
      const body = parse(AddBody, request.body, 'add_webhook_03');
      // Each registration costs a DNS lookup and an outbound request.
      await webhookAddLimit(ctx).consume(request.account.parent_id ?? request.account.id);
      await addWebhook(ctx, request.account.id, body.url, body.status === '1' ? 1 : 0);
      return ok('add_webhook_01', 'url_added_success');
    },
  );

  api.post(
    '/webhook/status',
    {
      schema: {
        tags,
        summary: "Enable ('1') or disable ('0') the webhook",
        body: jsonSchema(StatusBody),
        response: { 200: jsonSchema(PlainReply) },
      },
    },
    async (request) => {
      const body = parse(StatusBody, request.body, 'status_webhook_03');
      await changeStatus(ctx, request.account.id, body.status === '1' ? 1 : 0);
      return ok('status_webhook_01', 'webhook_status_updated');
    },
  );

  api.post(
    '/webhook/delete',
    {
      schema: {
        tags,
        summary: 'Remove the webhook and cancel its pending events',
        body: jsonSchema(Empty),
        response: { 200: jsonSchema(PlainReply) },
      },
    },
    async (request) => {
      await removeWebhook(ctx, request.account.id);
      return ok('delete_webhook_01', 'webhook_deleted');
    },
  );
}
