import { html } from '../../html.js';
import { recentCampaigns } from '../../../features/campaigns/service.js';
import { dailyStatusOf, STATUS_GROUPS, totalsOf } from '../../stats.js';
import { statusChart } from '../../charts.js';
import { campaignTable } from '../../campaign-table.js';
import { accountOf, formatNumber, type Section, type Shared, type View } from '../../view.js';

/** Balance, messages today and this month, delivery rate, the 30-day chart and the newest campaigns. */
export function overviewPage(_scope: unknown, shared: Shared): Section {
  const { ctx } = shared;
  return {
    path: '/panel/overview',
    title: 'overview',
    who: 'account',
    charts: true,
    async render(v: View) {
      const account = accountOf(v);
      const [totals, daily, campaigns] = await Promise.all([
        totalsOf(ctx, account.id),
        dailyStatusOf(ctx, account.id, 30),
        recentCampaigns(ctx, { accountId: account.id, sandbox: 0, from: null, to: null, limit: 5 }),
      ]);
      const labels = Object.fromEntries(STATUS_GROUPS.map((g) => [g, v.t(g)]));
      return html`<section class="stats" aria-label="${v.t('overview')}">
          <div class="stat">
            <span>${v.t('messages_today')}</span
            ><strong data-testid="messages-today">${formatNumber(v, totals.today)}</strong>
          </div>
          <div class="stat">
            <span>${v.t('messages_month')}</span
            ><strong data-testid="messages-month">${formatNumber(v, totals.month)}</strong>
          </div>
          <div class="stat">
            <span>${v.t('delivery_rate')}</span
            ><strong data-testid="delivery-rate"
              >${totals.deliveryRate === null ? v.t('none') : `${totals.deliveryRate} %`}</strong
            >
          </div>
        </section>
        <section class="card">
          <h2 id="chart-title">${v.t('last_30_days')}</h2>
          ${statusChart(v, 'chart-title', daily.days, daily.series, labels)}
        </section>
        <section class="card">
          <h2>${v.t('newest_campaigns')}</h2>
          ${campaignTable(v, campaigns)}
        </section>`;
    },
  };
}
