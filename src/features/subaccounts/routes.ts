import type { AppContext } from '../../context.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { toCredits, toUnits } from '../../accounts/credits.js';
import { ok } from '../../http/errors.js';
import { jsonSchema } from '../../http/fields.js';
import { parse } from '../../http/validate.js';
import { passwordEndpointLimit } from '../../http/rate-limit.js';
import { addSubaccount, archive, subaccountKey, transfer } from './service.js';
import { AddBody, EmailBody, ManageBody } from './schemas.js';

const envelope = { success: z.boolean(), message: z.string(), status: z.number(), code: z.string() };
const KeyReply = z.object({ ...envelope, apikey: z.string(), email: z.string() });
const ArchiveReply = z.object({
  ...envelope,
  credits_returned: z.number().describe('the balance moved back to the parent'),
});
const ManageReply = z.object({
  ...envelope,
  credit: z.number().describe("the caller's balance after the transfer"),
  subaccount_credit: z.number(),
});

const schema = (summary: string, body: z.ZodType, reply: z.ZodType) => ({
  tags: ['subaccounts'],
  summary,
  body: jsonSchema(body),
  response: { 200: jsonSchema(reply) },
});

export function subaccountsRoutes(api: FastifyInstance, ctx: AppContext) {
  api.post(
    '/manager/subaccount/add',
    { schema: schema('Create a sub-account with its own key and a zero balance', AddBody, KeyReply) },
    async (request) => {
      const { email, password } = parse(AddBody, request.body);
      await passwordEndpointLimit(ctx).consume(request.account.id);
      const created = await addSubaccount(ctx, request.account, email, password);
      return ok('subaccount_01', 'user_created', created);
    },
  );

  api.post(
    '/manager/subaccount/archive',
    {
      schema: schema(
        'Archive a sub-account (one-way): its key stops working, its balance returns to the parent',
        EmailBody,
        ArchiveReply,
      ),
    },
    async (request) => {
      const { email } = parse(EmailBody, request.body);
      const { returnedUnits } = await archive(ctx, request.account, email);
      return ok('subaccount_01', 'subaccount_archived', { credits_returned: toCredits(returnedUnits) });
    },
  );

  api.post(
    '/manager/subaccount/get_apikey',
    { schema: schema("A sub-account's current API key", EmailBody, KeyReply) },
    async (request) => {
      const { email } = parse(EmailBody, request.body);
      return ok('subaccount_01', 'subaccount_apikey', await subaccountKey(ctx, request.account, email));
    },
  );

  api.post(
    '/manager/subaccount/credits/manage',
    {
      config: { idempotent: true },
      schema: schema('Move credits to (type 1) or from (type 2) a sub-account', ManageBody, ManageReply),
    },
    async (request) => {
      const { email, type, credits } = parse(ManageBody, request.body);
      const { parentUnits, subUnits } = await transfer(ctx, request.account, email, type, toUnits(credits));
      return ok('subaccount_01', type === 1 ? 'credits_added' : 'credits_withdrawn', {
        credit: toCredits(parentUnits),
        subaccount_credit: toCredits(subUnits),
      });
    },
  );
}
