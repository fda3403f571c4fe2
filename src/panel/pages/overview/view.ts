import { html, type Html } from '../../html.js';
import { listCampaigns, type CampaignItem } from '../../../features/campaigns/service.js';
import { dailyStatusCounts, messageTotals, STATUS_GROUPS } from '../../stats.js';
import { accountOf, formatNumber, type Section, type Shared, type View } from '../../view.js';

/** Balance, messages today and this month, delivery rate, the 30-day chart and the newest campaigns. */
export function overviewPage(_scope: unknown, shared: Shared): Section {
  const db = shared.ctx.db.kysely;
  return {
    path: '/panel/overview',
    title: 'overview',
    who: 'account',
    charts: true,
    async render(v: View) {
      const account = accountOf(v);
      const [totals, daily, campaigns] = await Promise.all([
        messageTotals(db, account.id),
        dailyStatusCounts(db, account.id, 30),
        listCampaigns(db, { accountId: account.id, sandbox: 0, from: null, to: null, limit: 5 }),
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

/** The campaigns as a table (the overview's newest, the Campaigns page's filtered list), or a line saying there are none. */
export function campaignTable(v: View, campaigns: CampaignItem[], testId?: string): Html {
  if (campaigns.length === 0) return html`<p>${v.t('no_campaigns')}</p>`;
  return html`<div class="scroll">
    <table class="stack" ${testId ? html`data-testid="${testId}"` : ''}>
      <thead>
        <tr>
          <th scope="col">${v.t('name')}</th>
          <th scope="col">${v.t('created')}</th>
          <th scope="col">${v.t('channel')}</th>
          <th scope="col">${v.t('status')}</th>
        </tr>
      </thead>
      <tbody>
        ${campaigns.map(
          (c) =>
            html`<tr>
              <td><a href="/panel/campaigns/${c.id}">${c.name}</a></td>
              <td>${c.create_date}</td>
              <td>${c.type}</td>
              <td>${c.status}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/**
 * A stacked chart drawn by panel.js with uPlot from the data-* attributes,
 * and the same numbers as a table for screen readers and without scripts.
 */
export function statusChart(
  v: View,
  labelledBy: string,
  days: string[],
  series: Record<string, number[]>,
  labels: Record<string, string>,
  /** What a slot is (default: a day, or the campaign when there is one slot). */
  slot?: string,
) {
  const keys = Object.keys(series);
  const xLabel = slot ?? (days.length === 1 ? v.t('campaign') : v.t('day'));
  return html`<div
      class="chart"
      data-chart="${JSON.stringify({ days, series, labels, xLabel })}"
      role="img"
      aria-labelledby="${labelledBy}"
    ></div>
    <details>
      <summary>${v.t('chart_table')}</summary>
      <div class="scroll">
        <table data-testid="chart-table">
          <thead>
            <tr>
              <th scope="col">${slot ?? v.t('day')}</th>
              ${keys.map((k) => html`<th scope="col">${labels[k]}</th>`)}
            </tr>
          </thead>
          <tbody>
            ${days.map(
              (d, i) =>
                html`<tr>
                  <th scope="row">${d}</th>
                  ${keys.map((k) => html`<td data-series="${k}">${series[k][i]}</td>`)}
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </details>`;
}
