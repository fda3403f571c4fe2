import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { parse } from '../http/validate.js';
import { actorOf } from './guard.js';
import { AccountId, AccountsQuery, CreditChange, LedgerQuery, NewAccount } from './schemas.js';
import {
  accountById,
  accountLedger,
  accountsPage,
  archiveAs,
  changeCredits,
  createAccountAs,
  passwordResetAs,
  unarchiveAs,
} from './service.js';

const HIDDEN = { schema: { hide: true } };

/** /operator/v1/accounts…: list, one, create, credits, ledger, password reset, archive, unarchive (docs/operators/operator-api.md). */
export function accountRoutes(scope: FastifyInstance, ctx: AppContext): void {
  // An id that is no whole number names no account: 404, as an unknown one.
  const idOf = (params: unknown) => {
    const id = AccountId.safeParse(params);
    if (!id.success) throw new ApiError(404, 'op_account_missing');
    return id.data.id;
  };

  scope.get('/accounts', HIDDEN, async (request) => {
    const q = parse(AccountsQuery, request.query, 'op_page_invalid');
    return accountsPage(ctx.db.kysely, q.search, q.page);
  });
  scope.get('/accounts/:id', HIDDEN, async (request) => accountById(ctx.db.kysely, idOf(request.params)));
  scope.post('/accounts', HIDDEN, async (request, reply) => {
    const body = parse(NewAccount, request.body, 'op_email_invalid');
    return reply.code(201).send(await createAccountAs(ctx, actorOf(request), body.email, body.credits));
  });
  scope.post('/accounts/:id/credits', HIDDEN, async (request) => {
    const id = idOf(request.params);
    const body = parse(CreditChange, request.body, 'op_amount_invalid');
    return changeCredits(ctx.db, actorOf(request), id, body.amount, body.reason);
  });
  scope.get('/accounts/:id/ledger', HIDDEN, async (request) => {
    const id = idOf(request.params);
    return accountLedger(ctx.db.kysely, id, parse(LedgerQuery, request.query, 'op_ledger_invalid'));
  });
  scope.post('/accounts/:id/password-reset', HIDDEN, async (request) =>
    passwordResetAs(ctx, actorOf(request), idOf(request.params)),
  );
  scope.post('/accounts/:id/archive', HIDDEN, async (request) =>
    archiveAs(ctx.db, actorOf(request), idOf(request.params)),
  );
  scope.post('/accounts/:id/unarchive', HIDDEN, async (request) =>
    unarchiveAs(ctx, actorOf(request), idOf(request.params)),
  );
}
