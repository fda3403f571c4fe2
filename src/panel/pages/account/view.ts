import type { FastifyInstance } from 'fastify';
import { html } from '../../html.js';
import { csrfField, type Section, type Shared, type View } from '../../view.js';
import type { WordKey } from '../../i18n.js';
import { totpIsOn } from '../../service.js';
import { lowBalanceCard } from './low-balance.js';
import { registerAccountActions } from './actions.js';

/** Password change for accounts and operators. */
export function accountPage(scope: FastifyInstance, shared: Shared): Section {
  const section: Section = {
    path: '/panel/account',
    title: 'account',
    who: 'any',
    async render(v, shown = {}) {
      const s = v.session!;
      const on = await totpIsOn(shared.ctx, s);
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

  registerAccountActions(scope, shared, section);
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
