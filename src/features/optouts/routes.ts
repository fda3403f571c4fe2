import type { AppContext } from '../../context.js';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { badRequest, ok } from '../../http/errors.js';
import { jsonSchema } from '../../http/fields.js';
import { parse } from '../../http/validate.js';
import { AddedReply, ListReply, NumbersBody, PageQuery, RemovedReply } from './schemas.js';
import { fitsOnList, optIn, optOut, optoutPage, parseNumbers } from './service.js';

const schema = (summary: string, reply: z.ZodType, input: { body?: z.ZodType; querystring?: z.ZodType }) => ({
  tags: ['opt-outs'],
  summary,
  ...(input.body ? { body: jsonSchema(input.body) } : {}),
  ...(input.querystring ? { querystring: jsonSchema(input.querystring) } : {}),
  response: { 200: jsonSchema(reply) },
});

export function optoutsRoutes(api: FastifyInstance, ctx: AppContext) {
  const db = ctx.db.kysely;
  const limit = ctx.config.OPTOUT_LIST_LIMIT;
  const numbersOf = (body: unknown) => {
    const input = parse(NumbersBody, body, 'optout_05');
    return parseNumbers(input.numbers, input.country_code);
  };

  api.get(
    '/optouts',
    {
      schema: schema('The opt-out list, 100 numbers a page (by page, or after a number)', ListReply, {
        querystring: PageQuery,
      }),
    },
    async (request) => {
      const { page, after } = parse(PageQuery, request.query, 'optout_08');
      const optouts = await optoutPage(db, request.account.id, { page: page ?? 1, after }, limit);
      if (!optouts) throw badRequest('optout_10');
      return ok('optout_01', 'optouts_found', { optouts });
    },
  );

  api.post(
    '/optouts',
    { schema: schema('Put numbers on the opt-out list', AddedReply, { body: NumbersBody }) },
    async (request) => {
      const numbers = numbersOf(request.body);
      if (!(await fitsOnList(db, request.account.id, numbers, limit)))
        throw badRequest('optout_09', undefined, { limit });
      const added = await optOut(db, request.account.id, numbers, 'api');
      return ok('optout_02', 'optouts_added', { added });
    },
  );

  api.delete(
    '/optouts',
    { schema: schema('Take numbers off the opt-out list', RemovedReply, { body: NumbersBody }) },
    async (request) => {
      const removed = await optIn(db, request.account.id, numbersOf(request.body));
      return ok('optout_03', 'optouts_removed', { removed });
    },
  );
}
