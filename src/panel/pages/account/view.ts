import type { FastifyInstance } from 'fastify';
import { hashPassword } from '../../../lib/passwords.js';
import { shownEmail } from '../../../accounts/subaccount-email.js';
import { html } from '../../html.js';
import { confirmPassword } from '../../confirm.js';
import { createSession, endAllSessions, SESSION_COOKIE, setCookie } from '../../session.js';
import { csrfField, field, refuse, registerAction, type Section, type Shared, type View } from '../../view.js';
import type { WordKey } from '../../i18n.js';
import { disableTotp, startTotp, totpEnabled, useTotpCode } from '../../totp.js';
import { lowBalanceCard, registerLowBalance } from './low-balance.js';

/** Password change for accounts and operators. */
export function accountPage(scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  const db = ctx.db.kysely;
  const section: Section = {
    path: '/panel/account',
    title: 'account',
    who: 'any',
    async render(v, shown = {}) {
      const s = v.session!;
      const on = await totpEnabled(db, s.kind, s.account?.id ?? s.operator!.id);
      const lowBalance = s.account ? await lowBalanceCard(shared, v, shown) : '';
      return html`${lowBalance}${totpSection(v, on, shown)}
        <section class="card narrow" aria-labelledby="pw-title">
          <h2 id="pw-title">${v.t('change_password')}</h2>
          <form method="post" action="/panel/account/password">
            ${csrfField(v)}
            <label for="current">${v.t('current_password')}</label>
            <input id="current" name="current" type="password" autocomplete="current-password" required />
            <label for="new">${v.t('new_password')}</label>
            <input
              id="new"
              name="password"
              type="password"
              autocomplete="new-password"
              minlength="8"
              maxlength="128"
              required
              aria-describedby="pw-rules"
            />
            <label for="confirm">${v.t('confirm_password')}</label>
            <input
              id="confirm"
              name="confirm"
              type="password"
              autocomplete="new-password"
              minlength="8"
              maxlength="128"
              required
            />
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
      ? await db
          .selectFrom('panel_operators')
          .select(['id', 'email', 'password_hash'])
          .where('id', '=', s.operator.id)
          .executeTakeFirstOrThrow()
      : s.account!;
    await confirmPassword(request, v, principal.password_hash, principal.email, body.current);
    const password = typeof body.password === 'string' ? body.password : '';
    if (password.length < 8 || password.length > 128 || password !== body.confirm) throw refuse(400, 'password_rules');
    const hash = await hashPassword(password);
    const token = await db.transaction().execute(async (trx) => {
      if (s.operator)
        await trx.updateTable('panel_operators').set({ password_hash: hash }).where('id', '=', s.operator.id).execute();
      else await trx.updateTable('accounts').set({ password_hash: hash }).where('id', '=', s.account!.id).execute();
      await endAllSessions(trx, s.kind, Number(principal.id));
      return createSession(trx, s.kind, Number(principal.id), ctx.config.PANEL_SESSION_HOURS);
    });
    setCookie(request, reply, SESSION_COOKIE, token, ctx.config.PANEL_SESSION_HOURS * 3600);
    return { done: 'password_changed' };
  });
  registerLowBalance(scope, shared, section);
  registerAction(scope, shared, section, 'totp-start', async (request, v, body) => {
    const { principal, s } = await current(v);
    await confirmPassword(request, v, principal.password_hash, principal.email, body.password);
    return {
      shown: await startTotp(
        db,
        ctx.secrets.panelTotpEncryption,
        s.kind,
        Number(principal.id),
        shownEmail(principal.email),
      ),
    };
  });
  registerAction(scope, shared, section, 'totp-confirm', async (_request, v, body) => {
    const { principal, s } = await current(v);
    if (
      !(await useTotpCode(
        db,
        ctx.secrets.panelTotpEncryption,
        s.kind,
        Number(principal.id),
        field(body, 'code').replace(/\s/g, ''),
        true,
      ))
    )
      throw refuse(400, 'totp_wrong');
    return { done: 'totp_enabled' };
  });
  registerAction(scope, shared, section, 'totp-disable', async (request, v, body) => {
    const { principal, s } = await current(v);
    await confirmPassword(request, v, principal.password_hash, principal.email, body.password);
    await disableTotp(db, s.kind, Number(principal.id));
    return { done: 'totp_disabled' };
  });

  /** The signed-in person with their password hash (accounts carry it in the session; operators are read). */
  async function current(v: View) {
    const s = v.session!;
    const principal = s.operator
      ? await db
          .selectFrom('panel_operators')
          .select(['id', 'email', 'password_hash'])
          .where('id', '=', s.operator.id)
          .executeTakeFirstOrThrow()
      : s.account!;
    return { s, principal };
  }
  return section;
}

function totpSection(v: View, on: boolean, shown: Record<string, unknown>) {
  const passwordForm = (action: string, label: WordKey, id: string) =>
    html`<form method="post" action="/panel/account/${action}" class="row">
      ${csrfField(v)} <label for="${id}">${v.t('password')}</label
      ><input id="${id}" name="password" type="password" autocomplete="current-password" required />
      <button type="submit">${v.t(label)}</button>
    </form>`;
  return html`<section class="card narrow" aria-labelledby="totp-title">
    <h2 id="totp-title">${v.t('totp_title')}</h2>
    ${
      on
        ? html`<p data-testid="totp-state">${v.t('totp_on')}</p>
            ${passwordForm('totp-disable', 'totp_disable', 'totp-off-password')}`
        : typeof shown.secret === 'string'
          ? html`<p>${v.t('totp_scan')}</p>
              <p class="secret">
                <code id="totp-secret" data-testid="totp-secret">${shown.secret}</code>
                <button type="button" data-copy="totp-secret">${v.t('copy')}</button>
              </p>
              <p><a href="${String(shown.uri)}">${v.t('totp_title')}</a></p>
              <form method="post" action="/panel/account/totp-confirm" class="row">
                ${csrfField(v)} <label for="totp-first">${v.t('totp_code')}</label
                ><input id="totp-first" name="code" inputmode="numeric" autocomplete="one-time-code" required />
                <button type="submit">${v.t('totp_start')}</button>
              </form>`
          : html`<p data-testid="totp-state">${v.t('totp_off')}</p>
              ${passwordForm('totp-start', 'totp_start', 'totp-password')}`
    }
  </section>`;
}
