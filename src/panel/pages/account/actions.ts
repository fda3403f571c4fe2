import type { FastifyInstance } from 'fastify';
import { hashPassword } from '../../../lib/passwords.js';
import { shownEmail } from '../../../accounts/subaccount-email.js';
import { confirmPassword } from '../../confirm.js';
import { SESSION_COOKIE, setCookie } from '../../session.js';
import { beginTotp, changePassword, confirmTotp, principalOf, turnTotpOff } from '../../service.js';
import { field, refuse, registerAction, type Section, type Shared } from '../../view.js';
import { registerLowBalance } from './low-balance.js';

/** The account page's forms: password, low-balance threshold, two-step sign-in. */
export function registerAccountActions(scope: FastifyInstance, shared: Shared, section: Section): void {
  const { ctx } = shared;
  /**
   * Every session of the person ends (signed out everywhere); this browser
   * gets a fresh one, so whoever changed the password stays signed in.
   */
  registerAction(scope, shared, section, 'password', async (request, v, body, reply) => {
    const s = v.session!;
    const principal = await principalOf(ctx, s);
    await confirmPassword(request, v, principal.password_hash, principal.email, body.current);
    const password = typeof body.password === 'string' ? body.password : '';
    if (password.length < 8 || password.length > 128 || password !== body.confirm) throw refuse(400, 'password_rules');
    const token = await changePassword(ctx, s, await hashPassword(password));
    setCookie(request, reply, SESSION_COOKIE, token, ctx.config.PANEL_SESSION_HOURS * 3600);
    return { done: 'password_changed' };
  });
  registerLowBalance(scope, shared, section);
  registerAction(scope, shared, section, 'totp-start', async (request, v, body) => {
    const principal = await principalOf(ctx, v.session!);
    await confirmPassword(request, v, principal.password_hash, principal.email, body.password);
    return { shown: await beginTotp(ctx, v.session!, shownEmail(principal.email)) };
  });
  registerAction(scope, shared, section, 'totp-confirm', async (_request, v, body) => {
    if (!(await confirmTotp(ctx, v.session!, field(body, 'code').replace(/\s/g, '')))) throw refuse(400, 'totp_wrong');
    return { done: 'totp_enabled' };
  });
  registerAction(scope, shared, section, 'totp-disable', async (request, v, body) => {
    const principal = await principalOf(ctx, v.session!);
    await confirmPassword(request, v, principal.password_hash, principal.email, body.password);
    await turnTotpOff(ctx, v.session!);
    return { done: 'totp_disabled' };
  });
}
