import type { FastifyInstance } from 'fastify';
import { parse } from '../../../http/validate.js';
import { passwordEndpointLimit } from '../../../http/rate-limit.js';
import { toUnits } from '../../../accounts/credits.js';
import { callerById } from '../../../accounts/index.js';
import { addSubaccount, archive, subaccountKey, transfer } from '../../../features/subaccounts/service.js';
import { AddBody, EmailBody, ManageBody } from '../../../features/subaccounts/schemas.js';
import { confirmPassword } from '../../confirm.js';
import { accountOf, registerAction, type Section, type Shared } from '../../view.js';

/** Create, transfer credits, archive, reveal a key: the services of /manager/subaccount/*, with their codes. */
export function registerSubaccountActions(scope: FastifyInstance, shared: Shared, section: Section): void {
  const { ctx } = shared;
  // The services take the caller as the API sees it (settings inherited from a parent included).
  const callerOf = (id: number) => callerById(ctx, id);

  registerAction(scope, shared, section, 'create', async (_request, v, body) => {
    const input = parse(AddBody, body, 'subaccount_02');
    // The same budget as /manager/subaccount/add and /employee/add: each hashes a password.
    await passwordEndpointLimit(ctx).consume(accountOf(v).id);
    await addSubaccount(ctx, await callerOf(accountOf(v).id), input.email, input.password);
    return { done: 'sub_created' };
  });
  registerAction(scope, shared, section, 'transfer', async (_request, v, body) => {
    const input = parse(ManageBody, body, 'subaccount_11');
    await transfer(ctx, await callerOf(accountOf(v).id), input.email, input.type, toUnits(input.credits));
    return { done: 'transferred' };
  });
  registerAction(scope, shared, section, 'archive', async (_request, v, body) => {
    await archive(ctx, await callerOf(accountOf(v).id), parse(EmailBody, body, 'subaccount_02').email);
    return { done: 'sub_archived' };
  });
  registerAction(scope, shared, section, 'key', async (request, v, body) => {
    const account = accountOf(v);
    await confirmPassword(request, v, account.password_hash, account.email, body.password);
    return {
      shown: await subaccountKey(ctx, await callerOf(account.id), parse(EmailBody, body, 'subaccount_02').email),
    };
  });
}
