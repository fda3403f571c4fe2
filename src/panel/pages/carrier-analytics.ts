import type { FastifyInstance } from 'fastify';
import { carrierFigures, parseSince, receiptTimeline } from '../../carriers/analytics.js';
import { formatLocal } from '../../lib/time.js';
import { listPublicRoutes } from '../../carriers/index.js';
import { html } from '../html.js';
import { formatNumber, type Section, type Shared } from '../view.js';
import { statusChart } from './overview.js';

const PERIODS = ['1h', '6h', '24h', '7d'] as const;
/** The chart's slot per period: 12 to 24 bars, 7 for a week. */
const STEP_MS: Record<(typeof PERIODS)[number], number> = {
  '1h': 300_000,
  '6h': 1_800_000,
  '24h': 3_600_000,
  '7d': 86_400_000,
};

/** Per-carrier figures for the operator: the same as `mensajero carriers stats`, with each route's strategy. */
export function carrierAnalyticsPage(_scope: FastifyInstance, shared: Shared): Section {
  const db = shared.ctx.db.kysely;
  return {
    path: '/panel/operator/carriers',
    title: 'carrier_analytics',
    who: 'operator',
    charts: true,
    async render(v) {
      const since = PERIODS.find((p) => p === v.query.since) ?? '1h';
      const from = Date.now() - parseSince(since)!;
      const [figures, routes, timeline] = await Promise.all([
        carrierFigures(db, from),
        listPublicRoutes(db),
        receiptTimeline(db, from, STEP_MS[since]),
      ]);
      const series: Record<string, number[]> = {};
      const labels: Record<string, string> = {};
      for (const [name, s] of timeline.series) {
        series[`${name}:delivered`] = s.delivered;
        series[`${name}:failed`] = s.failed;
        labels[`${name}:delivered`] = `${name} ${v.t('delivered')}`;
        labels[`${name}:failed`] = `${name} ${v.t('failed')}`;
      }
      const slotLabel = (ms: number) => formatLocal(ms).slice(since === '7d' ? 0 : 11, since === '7d' ? 10 : 16);
      const ms = (n: number | null) => (n === null ? '—' : `${formatNumber(v, n)} ms`);
      return html`<section class="card" aria-labelledby="analytics-title">
        <h2 id="analytics-title">${v.t('carrier_analytics')}</h2>
        <form method="get" action="/panel/operator/carriers" class="row">
          <label for="since">${v.t('analytics_since')}</label>
          <select id="since" name="since">
            ${PERIODS.map((p) => html`<option value="${p}" ${p === since ? html`selected` : ''}>${p}</option>`)}
          </select>
          <button type="submit">${v.t('search')}</button>
        </form>
        <div class="scroll">
          <table class="stack" data-testid="carrier-figures">
            <thead>
              <tr>
                <th scope="col">${v.t('carrier')}</th>
                <th scope="col">${v.t('submitted')}</th>
                <th scope="col">${v.t('delivered')}</th>
                <th scope="col">${v.t('failed')}</th>
                <th scope="col">${v.t('carrier_delivery_rate')}</th>
                <th scope="col">${v.t('receipt_time')}</th>
                <th scope="col">${v.t('quality')}</th>
              </tr>
            </thead>
            <tbody>
              ${figures.map(
                (c) =>
                  html`<tr data-carrier="${c.name}">
                    <td>${c.name}</td>
                    <td>${formatNumber(v, c.submitted)}</td>
                    <td>${formatNumber(v, c.delivered)}</td>
                    <td>${formatNumber(v, c.failed)}</td>
                    <td>${c.delivery_rate === null ? '—' : `${(c.delivery_rate * 100).toFixed(1)} %`}</td>
                    <td>${ms(c.receipt_p50_ms)} / ${ms(c.receipt_p95_ms)}</td>
                    <td data-demoted="${c.demoted}">${c.demoted ? v.t('demoted') : v.t('healthy')}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
        <p class="help">${v.t('analytics_help')}</p>
        ${
          timeline.series.size > 0
            ? statusChart(v, 'analytics-title', timeline.slots.map(slotLabel), series, labels)
            : ''
        }
        <h3>${v.t('routes')}</h3>
        <ul data-testid="route-strategies">
          ${routes.map(
            (r) =>
              html`<li>
                ${r.channel} ${r.prefix === '' ? v.t('route_any_number') : `+${r.prefix}`}: ${v.t('route_strategy')}
                ${r.strategy}${r.weights ? ` (${r.weights.join('/')})` : ''} — ${r.carriers.join(', ')}
              </li>`,
          )}
        </ul>
      </section>`;
    },
  };
}
