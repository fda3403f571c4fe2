import type { FastifyInstance } from 'fastify';
import type { AccountSettingsView } from '../../../features/accounts/settings.js';
import type { LedgerPage } from '../../../accounts/index.js';
import { accountById, ledgerOf, prefixPrices, settingsOf } from '../../operator-data.js';
import { accountSenders } from '../../../features/sms/senders.js';
import type { PrefixPrice } from '../../../features/prices/service.js';
import { html } from '../../html.js';
import { shownTime } from '../../time.js';
import {
  csrfField,
  formatCredits,
  formatNumber,
  refuse,
  typed,
  type Section,
  type Shared,
  type View,
} from '../../view.js';
import { registerAccountActions } from './actions.js';
import { pricesTable, priceForm } from '../operator/prices.js';
import { settingsForm } from './settings.js';
import { toUnits } from '../../../accounts/credits.js';

/** The account an operator's account page shows: `?id=N`, or the id its refused or revealing form carried. */
export function accountIdOf(v: View, shown?: Record<string, unknown>): number {
  const text = v.query.id ?? (typeof shown?.id === 'number' ? String(shown.id) : typed(shown, 'id'));
  if (!/^\d{1,15}$/.test(text ?? '')) throw refuse(404, 'account_missing');
  return Number(text);
}

/** The most pages of the credit history one may ask for (the operator API's bound). */
const MAX_LEDGER_PAGE = 10_000;

/** `?ledger_page=N`: the page of the credit history shown (1, the newest, for anything else). */
function ledgerPageOf(v: View): number {
  const text = v.query.ledger_page ?? '';
  return /^\d{1,5}$/.test(text) && Number(text) >= 1 && Number(text) <= MAX_LEDGER_PAGE ? Number(text) : 1;
}

/**
 * One account for the operator: its settings (`accounts set`), prefix prices, senders, API key rotation, a one-time
 * password link and its credit history; every change through the service the CLI and the operator API call.
 */
export function operatorAccountPage(scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  const section: Section = {
    path: '/panel/operator/account',
    title: 'account_page',
    who: 'operator',
    async render(v, shown) {
      const id = accountIdOf(v, shown);
      const account = await accountById(ctx, id);
      if (!account) throw refuse(404, 'account_missing');
      const [settings, prices, senders, ledger] = await Promise.all([
        settingsOf(ctx, account),
        prefixPrices(ctx, id),
        accountSenders(ctx, id),
        ledgerOf(ctx, id, ledgerPageOf(v)),
      ]);
      return html`${summaryCard(v, settings)}
        <section class="card" aria-labelledby="settings-title">
          <h2 id="settings-title">${v.t('account_settings')}</h2>
          <p class="help">${v.t('account_settings_help')}</p>
          ${settingsForm(v, id, settings, shown)}
        </section>
        ${pricesCard(v, id, prices, shown)} ${sendersCard(v, id, senders)} ${keyCard(v, id, shown)}
        ${ledgerCard(v, id, ledger)}`;
    },
  };
  registerAccountActions(scope, shared, section);
  return section;
}

function summaryCard(v: View, s: AccountSettingsView) {
  return html`<section class="card" aria-labelledby="summary-title">
    <h2 id="summary-title" data-testid="account-email">${s.email}</h2>
    <p>
      ${v.t('balance')}: <strong data-testid="account-balance">${formatCredits(v, toUnits(s.credits))}</strong>
      ${v.t('credits')} · ${v.t('status')}: ${s.status === 'active' ? v.t('active') : v.t('archived')}
    </p>
  </section>`;
}

function pricesCard(v: View, id: number, prices: PrefixPrice[], shown?: Record<string, unknown>) {
  return html`<section class="card" aria-labelledby="prices-title">
    <h2 id="prices-title">${v.t('account_prices')}</h2>
    <p class="help">${v.t('account_prices_help')}</p>
    ${pricesTable(v, prices, '/panel/operator/account', id)} ${priceForm(v, '/panel/operator/account/price', shown, id)}
  </section>`;
}

function sendersCard(v: View, id: number, senders: Array<{ name: string; rcs: boolean }>) {
  return html`<section class="card" aria-labelledby="senders-title">
    <h2 id="senders-title">${v.t('senders')}</h2>
    ${
      senders.length === 0
        ? html`<p>${v.t('senders_none')}</p>`
        : html`<table class="stack" data-testid="senders">
            <thead>
              <tr>
                <th scope="col">${v.t('sender')}</th>
                <th scope="col">${v.t('sender_rcs')}</th>
                <th scope="col">${v.t('actions')}</th>
              </tr>
            </thead>
            <tbody>
              ${senders.map(
                (s) =>
                  html`<tr data-sender="${s.name}">
                    <td>${s.name}</td>
                    <td>${s.rcs ? v.t('yes') : v.t('no')}</td>
                    <td>
                      <form method="post" action="/panel/operator/account/remove-sender">
                        ${csrfField(v)}<input type="hidden" name="id" value="${id}" /><input
                          type="hidden"
                          name="sender"
                          value="${s.name}"
                        /><button type="submit" class="small danger" aria-label="${v.t('remove_of', { what: s.name })}">
                          ${v.t('remove')}
                        </button>
                      </form>
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    <form method="post" action="/panel/operator/account/add-sender" class="row">
      ${csrfField(v)}<input type="hidden" name="id" value="${id}" /> <label for="new-sender">${v.t('sender')}</label
      ><input id="new-sender" name="sender" maxlength="15" required />
      <label><input type="checkbox" name="rcs" value="1" /> ${v.t('sender_rcs')}</label>
      <button type="submit">${v.t('sender_add')}</button>
    </form>
  </section>`;
}

/** API key rotation and the one-time password link: each secret shown once, on the page the form answers. */
function keyCard(v: View, id: number, shown?: Record<string, unknown>) {
  const apikey = typeof shown?.apikey === 'string' ? shown.apikey : undefined;
  const reset = typeof shown?.reset_url === 'string' ? shown : undefined;
  return html`<section class="card" aria-labelledby="key-title">
    <h2 id="key-title">${v.t('api_key')}</h2>
    <p class="help">${v.t('rotate_key_help')}</p>
    ${
      apikey
        ? html`<p class="secret" role="status">
            ${v.t('key_rotated_shown')} <code data-testid="new-apikey">${apikey}</code>
          </p>`
        : ''
    }
    <form method="post" action="/panel/operator/account/rotate-key">
      ${csrfField(v)}<input type="hidden" name="id" value="${id}" />
      <button type="submit" class="danger">${v.t('rotate_key')}</button>
    </form>
    <h3>${v.t('reset_link')}</h3>
    <p class="help">${v.t('reset_link_help')}</p>
    ${
      reset
        ? html`<p class="secret" role="status">
            ${v.t('reset_link_shown')} ${shownTime(v, String(reset.expires_at))}:
            <code data-testid="reset-url">${String(reset.reset_url)}</code>
          </p>`
        : ''
    }
    <form method="post" action="/panel/operator/account/password-reset">
      ${csrfField(v)}<input type="hidden" name="id" value="${id}" />
      <button type="submit">${v.t('reset_link_create')}</button>
    </form>
  </section>`;
}

/** Links to the newer and older pages of the credit history, when there are. */
function ledgerPager(v: View, id: number, ledger: LedgerPage) {
  const link = (page: number) => `/panel/operator/account?id=${id}&ledger_page=${page}#ledger-title`;
  const newer = ledger.page > 1;
  const older = ledger.has_more && ledger.page < MAX_LEDGER_PAGE;
  if (!newer && !older) return '';
  return html`<nav class="row" aria-label="${v.t('credit_history_pages')}" data-testid="ledger-pages">
    ${newer ? html`<a href="${link(ledger.page - 1)}" rel="prev">← ${v.t('credit_history_newer')}</a>` : ''}
    <span>${v.t('credit_history_page', { page: formatNumber(v, ledger.page) })}</span>
    ${older ? html`<a href="${link(ledger.page + 1)}" rel="next">${v.t('credit_history_older')} →</a>` : ''}
  </nav>`;
}

function ledgerCard(v: View, id: number, ledger: LedgerPage) {
  const entries = ledger.entries;
  return html`<section class="card" aria-labelledby="ledger-title">
    <h2 id="ledger-title">${v.t('credit_history')}</h2>
    <p class="help">${v.t('credit_history_help')}</p>
    ${
      entries.length === 0
        ? html`<p>${v.t('credit_history_none')}</p>`
        : html`<div class="scroll">
            <table class="stack" data-testid="ledger">
              <thead>
                <tr>
                  <th scope="col">${v.t('ledger_at')}</th>
                  <th scope="col">${v.t('ledger_kind')}</th>
                  <th scope="col">${v.t('ledger_amount')}</th>
                  <th scope="col">${v.t('ledger_balance_after')}</th>
                  <th scope="col">${v.t('ledger_reason')}</th>
                  <th scope="col">${v.t('ledger_actor')}</th>
                  <th scope="col">${v.t('ledger_reference')}</th>
                </tr>
              </thead>
              <tbody>
                ${entries.map(
                  (e) =>
                    html`<tr data-kind="${e.kind}">
                      <td>${shownTime(v, e.at)}</td>
                      <td>${v.t(`ledger_${e.kind}`)}</td>
                      <td>${formatCredits(v, toUnits(e.amount))}</td>
                      <td>${formatCredits(v, toUnits(e.balance_after))}</td>
                      <td>${e.reason ?? ''}</td>
                      <td>${e.actor}</td>
                      <td>${e.reference ?? ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    ${ledgerPager(v, id, ledger)}
  </section>`;
}
