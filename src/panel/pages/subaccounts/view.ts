import type { FastifyInstance } from 'fastify';
import { subaccountsOf } from '../../../accounts/index.js';
import { shownEmail } from '../../../accounts/subaccount-email.js';
import { html } from '../../html.js';
import { accountOf, csrfField, formatCredits, refuse, type Section, type Shared, type View } from '../../view.js';
import { registerSubaccountActions } from './actions.js';

/** A parent account's sub-accounts: create, transfer credits, archive, reveal a key (the API's rules and codes). */
export function subaccountsPage(scope: FastifyInstance, shared: Shared): Section {
  const section: Section = {
    path: '/panel/subaccounts',
    title: 'subaccounts',
    who: 'account',
    async render(v, shown = {}) {
      const account = accountOf(v);
      // One level: a sub-account has no sub-accounts, and sees nothing of its parent.
      if (account.parent_id !== null) throw refuse(403, 'forbidden');
      const rows = await subaccountsOf(shared.ctx, account.id);
      const subs = rows.map((r) => ({ ...r, email: shownEmail(r.email) }));
      return html`<section class="card" aria-labelledby="subs-title">
        <h2 id="subs-title">${v.t('subaccounts')}</h2>
        ${typeof shown.apikey === 'string' ? html`<p class="secret">${String(shown.email)}: <code id="sub-key" data-testid="subaccount-key">${shown.apikey}</code> <button type="button" data-copy="sub-key">${v.t('copy')}</button></p>` : ''}
        ${
          subs.length === 0
            ? html`<p>${v.t('no_subaccounts')}</p>`
            : html`<div class="scroll">
                <table class="stack" data-testid="subaccounts">
                  <thead>
                    <tr>
                      <th scope="col">${v.t('email')}</th>
                      <th scope="col">${v.t('balance')}</th>
                      <th scope="col">${v.t('status')}</th>
                      <th scope="col">${v.t('actions')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${subs.map((s) => subaccountRow(v, s))}
                  </tbody>
                </table>
              </div>`
        }
        <h3>${v.t('sub_create')}</h3>
        <form method="post" action="/panel/subaccounts/create" class="grid">
          ${csrfField(v)} <label for="sub-email">${v.t('email')}</label
          ><input id="sub-email" name="email" type="email" required />
          <label for="sub-password">${v.t('password')}</label
          ><input
            id="sub-password"
            name="password"
            type="password"
            autocomplete="new-password"
            minlength="6"
            maxlength="36"
            required
          />
          <button type="submit">${v.t('sub_create')}</button>
        </form>
      </section>`;
    },
  };

  registerSubaccountActions(scope, shared, section);
  return section;
}

type Subaccount = { id: number | string; email: string; credits: number | string; status: string };

/** A sub-account's line: its balance and, while it is active, transfer, reveal-key and archive forms. */
function subaccountRow(v: View, s: Subaccount) {
  return html`<tr data-subaccount="${s.email}">
    <td>${s.email}</td>
    <td>${formatCredits(v, Number(s.credits))}</td>
    <td>${s.status === 'active' ? v.t('active') : v.t('archived')}</td>
    <td>
      ${
        s.status !== 'active'
          ? ''
          : html` <form method="post" action="/panel/subaccounts/transfer" class="row">
                ${csrfField(v)}<input type="hidden" name="email" value="${s.email}" />
                <label class="sr" for="amount-${s.id}">${v.t('amount')} (${s.email})</label
                ><input id="amount-${s.id}" name="credits" inputmode="numeric" size="6" required />
                <label class="sr" for="dir-${s.id}">${v.t('direction')} (${s.email})</label
                ><select id="dir-${s.id}" name="type">
                  <option value="1">${v.t('to_sub')}</option>
                  <option value="2">${v.t('from_sub')}</option>
                </select>
                <button type="submit" class="small">${v.t('transfer')}</button>
              </form>
              <form method="post" action="/panel/subaccounts/key" class="row">
                ${csrfField(v)}<input type="hidden" name="email" value="${s.email}" />
                <label class="sr" for="pw-${s.id}">${v.t('password')} (${s.email})</label
                ><input
                  id="pw-${s.id}"
                  name="password"
                  type="password"
                  autocomplete="current-password"
                  placeholder="${v.t('password')}"
                  required
                />
                <button type="submit" class="small">${v.t('reveal')}</button>
              </form>
              <form method="post" action="/panel/subaccounts/archive">
                ${csrfField(v)}<input type="hidden" name="email" value="${s.email}" /><button
                  type="submit"
                  class="small danger"
                >
                  ${v.t('archive')}
                </button>
              </form>`
      }
    </td>
  </tr>`;
}
