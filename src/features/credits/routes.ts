import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { toCredits } from '../../accounts/credits.js';
import { ok } from '../../http/errors.js';
import { jsonSchema } from '../../http/fields.js';

const Reply = z.object({
  success: z.boolean(),
  message: z.literal('available_credits'),
  status: z.number(),
  code: z.literal('credit_01'),
  credit: z.number(),
  credits: z.number().optional().describe('GET form only'),
});

export function creditsRoutes(api: FastifyInstance) {
  const schema = { tags: ['credits'], summary: 'Available credits', response: { 200: jsonSchema(Reply) } };
  // The account row was read by the apikey hook at the start of this request: it reflects every committed send.
  api.post('/credits/consult', { schema }, async (request) =>
    ok('credit_01', 'available_credits', { credit: toCredits(request.account.credits) }),
  );
  api.get('/credits/consult', { schema }, async (request) => {
    const credit = toCredits(request.account.credits);
    return ok('credit_01', 'available_credits', { credit, credits: credit });
  });
}
