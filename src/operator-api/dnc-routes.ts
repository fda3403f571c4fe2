import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { parse } from '../http/validate.js';
import { addDoNotContact, DncError, listDoNotContact, MAX_PAGE, removeDoNotContact } from '../features/dnc/service.js';
import { actorOf } from './guard.js';
import { decimal, jsonBody } from './schemas.js';

const HIDDEN = { schema: { hide: true } };

const DncQuery = z.object({
  after: z
    .string({ error: 'op_list_invalid' })
    .regex(/^\d{1,15}$/, { error: 'op_list_invalid' })
    .optional(),
  limit: decimal('op_list_invalid', MAX_PAGE).default(MAX_PAGE),
});
const DncNumber = jsonBody({
  number: z.string({ error: 'op_number_invalid' }).max(32, { error: 'op_number_invalid' }),
});

/** The do-not-contact list over the API: list (by pages after a number), add and remove (as `dnc add|remove|list`). */
export function dncRoutes(scope: FastifyInstance, ctx: AppContext): void {
  const db = ctx.db;
  scope.get('/dnc', HIDDEN, async (request) => {
    const q = parse(DncQuery, request.query, 'op_list_invalid');
    return listDoNotContact(db, { after: q.after, limit: q.limit });
  });
  scope.post('/dnc', HIDDEN, async (request, reply) => {
    const { number } = parse(DncNumber, request.body, 'op_number_invalid');
    try {
      return reply.code(201).send(await addDoNotContact(db, number, actorOf(request)));
    } catch (err) {
      if (err instanceof DncError) throw new ApiError(400, 'op_number_invalid');
      throw err;
    }
  });
  scope.delete('/dnc/:number', HIDDEN, async (request) => {
    const { number } = parse(DncNumber, request.params, 'op_number_invalid');
    try {
      return await removeDoNotContact(db, number, actorOf(request));
    } catch (err) {
      if (err instanceof DncError) throw new ApiError(400, 'op_number_invalid');
      throw err;
    }
  });
}
