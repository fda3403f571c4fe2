import type { AppContext } from '../../context.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ok } from '../../http/errors.js';
import { jsonSchema } from '../../http/fields.js';
import { parse } from '../../http/validate.js';
import { sendVoice, VoiceSend } from './service.js';

const Reply = z.object({
  success: z.boolean(),
  message: z.literal('sent_messages'),
  status: z.number(),
  code: z.literal('sms_11'),
  total_messages: z.number().int(),
  references: z.array(z.object({ reference: z.string(), number: z.string().describe('with country code') })),
  credit: z.number().describe('credits consumed'),
  campaignId: z.number().int().optional().describe('only when showCampaignId is true'),
});

const fields = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export function voiceRoutes(api: FastifyInstance, ctx: AppContext) {
  api.post(
    '/voice/send',
    {
      config: { sendLimited: true },
      schema: {
        tags: ['voice'],
        summary: 'Text-to-speech calls from a script (templates a to k)',
        body: jsonSchema(VoiceSend),
        response: { 200: jsonSchema(Reply) },
      },
    },
    async (request) => {
      // showCampaignId may come in the query as well as in the body.
      const input = parse(VoiceSend, {
        showCampaignId: fields(request.query).showCampaignId,
        ...fields(request.body),
      });
      return ok('sms_11', 'sent_messages', await sendVoice(ctx, request.account.id, input));
    },
  );
}
