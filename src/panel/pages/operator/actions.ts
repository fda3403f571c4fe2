import type { FastifyInstance } from 'fastify';
import { MAX_BALANCE_CREDITS, toCredits, toUnits } from '../../../accounts/credits.js';
import { accountByEmail, addCredits, archiveAccountNow, openAccount, reasonProblem } from '../../../accounts/index.js';
import { AccountCreateError } from '../../../accounts/create.js';
import { isAccountEmail, normalEmail } from '../../../text/email.js';
import { panelActor } from '../../audit.js';
import { registerCloseBind } from './smpp.js';
import { field, refuse, registerAction, type Section, type Shared } from '../../view.js';

/** Positive credits with at most 4 decimals (one unit), as the CLI accepts them. */
function creditsField(text: string, allowZero: boolean): number {
  const n = Number(text === '' && allowZero ? '0' : text);
  if (!Number.isFinite(n) || n < 0 || (!allowZero && n === 0) || n > MAX_BALANCE_CREDITS || toCredits(toUnits(n)) !== n)
    throw refuse(400, 'credits_invalid');
  return n;
}

/** The operator view's forms: create an account, add credits, archive, close an SMPP bind (each recorded in the audit log). */
export function registerOperatorActions(scope: FastifyInstance, shared: Shared, section: Section): void {
  const { ctx } = shared;
  registerAction(
    scope,
    shared,
    section,
    'create',
    async (_request, _v, body) => {
      const email = normalEmail(field(body, 'email'));
      const password = typeof body.password === 'string' ? body.password : '';
      if (!isAccountEmail(email)) throw refuse(400, 'email_invalid');
      if (password.length < 8 || password.length > 128) throw refuse(400, 'password_rules');
      const credits = creditsField(field(body, 'credits'), true);
      await openAccount(ctx, { email, password, credits }).catch((err) => {
        throw err instanceof AccountCreateError ? refuse(400, err.code) : err;
      });
      return { done: 'account_created' };
    },
    'accounts.create',
  );

  registerAction(
    scope,
    shared,
    section,
    'credits',
    async (request, _v, body) => {
      const account = await accountByEmail(ctx, field(body, 'email'));
      if (!account || account.status !== 'active') throw refuse(400, 'email_invalid');
      const reason = field(body, 'reason') || null;
      if (reason !== null && reasonProblem(reason)) throw refuse(400, 'reason_invalid');
      const by = { actor: panelActor(request), reason };
      // Only additions here (credits above zero): a refusal is the balance ceiling.
      if (!(await addCredits(ctx, account.id, toUnits(creditsField(field(body, 'credits'), false)), by)))
        throw refuse(400, 'credits_ceiling');
      return { done: 'credits_added' };
    },
    'accounts.credits',
  );

  registerAction(
    scope,
    shared,
    section,
    'archive',
    async (request, _v, body) => {
      const account = await accountByEmail(ctx, field(body, 'email'));
      if (!account) throw refuse(400, 'email_invalid');
      await archiveAccountNow(ctx, account.id);
      return { done: 'account_archived' };
    },
    'accounts.archive',
  );

  registerCloseBind(scope, shared, section);
}
