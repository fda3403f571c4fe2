import type { AppContext } from '../../context.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import { ok } from '../../http/errors.js';
import { jsonSchema } from '../../http/fields.js';
import { parse } from '../../http/validate.js';
import { ChatappSend, sendChatapp } from './service.js';

const Reply = z.object({
  success: z.boolean(),
  message: z.literal('message sent'),
  status: z.number(),
  code: z.literal('whatsapp_21'),
  credit: z.number().describe('credits consumed'),
  reference: z.string(),
  id: z.number().int().optional().describe('the message id, only with show_id 1'),
});

const fields = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** POST takes its parameters from the body; show_id may also come in the query. GET takes all from the query. */
const inputOf = (request: FastifyRequest) =>
  request.method === 'GET'
    ? fields(request.query)
    : { show_id: fields(request.query).show_id, ...fields(request.body) };

/** The spec's path and the one integrations written before the rename call. */
export const SEND_PATHS = ['/chatapp/send', '/whatsapp/send'] as const;

export function chatappRoutes(api: FastifyInstance, ctx: AppContext) {
  const handler = async (request: FastifyRequest) => {
    const input = parse(ChatappSend, inputOf(request));
    return ok('whatsapp_21', 'message sent', await sendChatapp(ctx, request.account.id, input));
  };
  const response = { 200: jsonSchema(Reply) };
  const post = {
    config: { sendLimited: true },
    schema: {
      tags: ['chatapp'],
      summary: 'Send a chat-app message (text or media) from an instance',
      body: jsonSchema(ChatappSend),
      response,
    },
  };
  const get = {
    config: { sendLimited: true },
    schema: {
      tags: ['chatapp'],
      summary: 'Send a chat-app message (query form; POST is preferred)',
      querystring: jsonSchema(ChatappSend),
      response,
    },
  };
  // One definition, two paths: /whatsapp/send is the path every existing integration calls (see docs/api/compatibility.md).
  for (const path of SEND_PATHS) {
    api.post(path, post, handler);
    api.get(path, get, handler);
  }
}
