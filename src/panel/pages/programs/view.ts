import type { FastifyInstance } from 'fastify';
import { loyaltySummariesOf } from '../../../features/loyalty/service.js';
import { staffSummariesOf } from '../../../features/staff/service.js';
import { walletSummariesOf } from '../../../features/wallet/service.js';
import { html } from '../../html.js';
import { accountOf, formatNumber, type Section, type Shared, type View } from '../../view.js';

/** Wallet and loyalty programs and staff users, read only (they are managed through the API and the CLI). */
export function programsPage(_scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  return {
    path: '/panel/programs',
    title: 'programs',
    who: 'account',
    async render(v) {
      const account = accountOf(v);
      const [wallets, loyalty, staff] = await Promise.all([
        walletSummariesOf(ctx, account.id),
        loyaltySummariesOf(ctx, account.id),
        staffSummariesOf(ctx, account.id),
      ]);
      return html`${walletsCard(v, wallets)} ${loyaltyCard(v, loyalty)} ${staffCard(v, staff)}`;
    },
  };
}

type Summaries<F extends (...a: never[]) => Promise<unknown[]>> = Awaited<ReturnType<F>>;

function walletsCard(v: View, wallets: Summaries<typeof walletSummariesOf>) {
  const money = (cents: number) =>
    new Intl.NumberFormat(v.lang === 'es' ? 'es-MX' : 'en-US', { minimumFractionDigits: 2 }).format(cents / 100);
  return html`<section class="card" aria-labelledby="wallets-title">
    <h2 id="wallets-title">${v.t('wallets')}</h2>
    ${
      wallets.length === 0
        ? html`<p>${v.t('none_yet')}</p>`
        : html`<div class="scroll">
            <table class="stack" data-testid="wallets">
              <thead>
                <tr>
                  <th scope="col">${v.t('name')}</th>
                  <th scope="col">${v.t('app_client')}</th>
                  <th scope="col">${v.t('members')}</th>
                  <th scope="col">${v.t('wallet_balance')}</th>
                </tr>
              </thead>
              <tbody>
                ${wallets.map(
                  (w) =>
                    html`<tr>
                      <td>${w.name}</td>
                      <td>${w.app_client}</td>
                      <td>${formatNumber(v, Number(w.members))}</td>
                      <td>${money(Number(w.cents))}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}

function loyaltyCard(v: View, loyalty: Summaries<typeof loyaltySummariesOf>) {
  return html`<section class="card" aria-labelledby="loyalty-title">
    <h2 id="loyalty-title">${v.t('loyalty')}</h2>
    ${
      loyalty.length === 0
        ? html`<p>${v.t('none_yet')}</p>`
        : html`<div class="scroll">
            <table class="stack" data-testid="loyalty">
              <thead>
                <tr>
                  <th scope="col">${v.t('name')}</th>
                  <th scope="col">${v.t('stamps_required')}</th>
                  <th scope="col">${v.t('members')}</th>
                  <th scope="col">${v.t('rewards_available')}</th>
                </tr>
              </thead>
              <tbody>
                ${loyalty.map(
                  (p) =>
                    html`<tr>
                      <td>${p.name}</td>
                      <td>${p.stamps_required}</td>
                      <td>${formatNumber(v, Number(p.members))}</td>
                      <td>${formatNumber(v, Number(p.rewards))}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}

function staffCard(v: View, staff: Summaries<typeof staffSummariesOf>) {
  return html`<section class="card" aria-labelledby="staff-title">
    <h2 id="staff-title">${v.t('staff')}</h2>
    ${
      staff.length === 0
        ? html`<p>${v.t('none_yet')}</p>`
        : html`<div class="scroll">
            <table class="stack" data-testid="staff">
              <thead>
                <tr>
                  <th scope="col">${v.t('name')}</th>
                  <th scope="col">${v.t('type')}</th>
                  <th scope="col">${v.t('business')}</th>
                  <th scope="col">${v.t('status')}</th>
                </tr>
              </thead>
              <tbody>
                ${staff.map(
                  (s) =>
                    html`<tr>
                      <td>${s.name}</td>
                      <td>${s.type}</td>
                      <td>${s.business_name}</td>
                      <td>${s.status === 'active' ? v.t('active') : v.t('disabled')}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}
