import type { FastifyInstance } from 'fastify';
import { hashPassword } from '../../lib/passwords.js';
import { html } from '../html.js';
import { confirmPassword } from '../confirm.js';
import { createSession, endAllSessions, SESSION_COOKIE, setCookie } from '../session.js';
import { csrfField, refuse, registerAction, type Section, type Shared } from '../view.js';

/** Password change for accounts and operators. */
export function accountPage(scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  const db = ctx.db.kysely;
  const section: Section = {
    path: '/panel/account',
    title: 'account',
    who: 'any',
    async render(v) {
      return html`<section class="card narrow" aria-labelledby="pw-title">
  <h2 id="pw-title">${v.t('change_password')}</h2>
  <form method="post" action="/panel/account/password">${csrfField(v)}
    <label for="current">${v.t('current_password')}</label>
    <input id="current" name="current" type="password" autocomplete="current-password" required>
    <label for="new">${v.t('new_password')}</label>
    <input id="new" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="128" required aria-describedby="pw-rules">
    <label for="confirm">${v.t('confirm_password')}</label>
    <input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="8" maxlength="128" required>
    <p id="pw-rules" class="help">${v.t('password_rules')}</p>
    <button type="submit">${v.t('change_password')}</button>
  </form>
</section>`;
    },
  };

  /**
   * Every session of the person ends (signed out everywhere); this browser
   * gets a fresh one, so whoever changed the password stays signed in.
   */
  registerAction(scope, shared, section, 'password', async (request, v, body, reply) => {
    const s = v.session!;
    const principal = s.operator
      ? await db.selectFrom('panel_operators').select(['id', 'email', 'password_hash']).where('id', '=', s.operator.id).executeTakeFirstOrThrow()
      : s.account!;
    await confirmPassword(request, v, principal.password_hash, principal.email, body.current);
    const password = typeof body.password === 'string' ? body.password : '';
    if (password.length < 8 || password.length > 128 || password !== body.confirm) throw refuse(400, 'password_rules');
    const hash = await hashPassword(password);
    const token = await db.transaction().execute(async (trx) => {
      if (s.operator) await trx.updateTable('panel_operators').set({ password_hash: hash }).where('id', '=', s.operator.id).execute();
      else await trx.updateTable('accounts').set({ password_hash: hash }).where('id', '=', s.account!.id).execute();
      await endAllSessions(trx, s.kind, Number(principal.id));
      return createSession(trx, s.kind, Number(principal.id), ctx.config.PANEL_SESSION_HOURS);
    });
    setCookie(request, reply, SESSION_COOKIE, token, ctx.config.PANEL_SESSION_HOURS * 3600);
    return { done: 'password_changed' };
  });
  return section;
}
