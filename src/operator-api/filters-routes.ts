import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { accountByEmail, findAccountById } from '../accounts/index.js';
import { ApiError } from '../http/errors.js';
import { defineMessages } from '../http/codes.js';
import { parse } from '../http/validate.js';
import { addFilter, FilterError, listFilters, removeFilter } from '../features/filters/service.js';
import { actorOf } from './guard.js';
import { decimal, jsonBody } from './schemas.js';

defineMessages({
  op_filter_invalid:
    'action: block or flag; exactly one of word (1 to 10 words, at most 100 characters) or domain (a host name such as bbva-mx.example); account_id or email: an account, or neither for every account',
  op_filter_exists: 'The same filter exists',
  op_filters_full: 'The deployment holds 10000 filters, the most it may: remove some first',
  op_filter_missing: 'No filter with that id',
});

const HIDDEN = { schema: { hide: true } };

const NewFilterBody = jsonBody({
  action: z.string({ error: 'op_filter_invalid' }),
  account_id: z.number({ error: 'op_filter_invalid' }).int({ error: 'op_filter_invalid' }).optional(),
  email: z.string({ error: 'op_filter_invalid' }).max(320, { error: 'op_filter_invalid' }).optional(),
  word: z.string({ error: 'op_filter_invalid' }).max(1000, { error: 'op_filter_invalid' }).optional(),
  domain: z.string({ error: 'op_filter_invalid' }).max(1000, { error: 'op_filter_invalid' }).optional(),
});
const FilterId = z.object({ id: decimal('op_filter_missing') });

/** The content filters over the API: list, add and remove (as `filters list|add|remove`). */
export function filterRoutes(scope: FastifyInstance, ctx: AppContext): void {
  scope.get('/filters', HIDDEN, async () => listFilters(ctx.db));
  scope.post('/filters', HIDDEN, async (request, reply) => {
    const body = parse(NewFilterBody, request.body, 'op_filter_invalid');
    if (body.account_id !== undefined && body.email !== undefined) throw new ApiError(400, 'op_filter_invalid');
    const account =
      body.account_id !== undefined
        ? await findAccountById(ctx.db.kysely, body.account_id)
        : body.email !== undefined
          ? await accountByEmail(ctx, body.email)
          : null;
    if (account === undefined) throw new ApiError(404, 'op_account_missing');
    try {
      const added = await addFilter(
        ctx.db,
        {
          action: body.action,
          account: account && { id: Number(account.id), email: account.email },
          word: body.word,
          domain: body.domain,
        },
        actorOf(request),
      );
      return reply.code(201).send(added);
    } catch (err) {
      if (err instanceof FilterError)
        throw new ApiError(err.code === 'op_filter_invalid' ? 400 : 409, err.code, err.message);
      throw err;
    }
  });
  scope.delete('/filters/:id', HIDDEN, async (request) => {
    const id = FilterId.safeParse(request.params);
    if (!id.success) throw new ApiError(404, 'op_filter_missing');
    const { removed } = await removeFilter(ctx.db, id.data.id, actorOf(request));
    if (!removed) throw new ApiError(404, 'op_filter_missing');
    return { removed };
  });
}
