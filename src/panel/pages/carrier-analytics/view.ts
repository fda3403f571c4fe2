import type { FastifyInstance } from 'fastify';
import { parseSince, type CarrierFigures } from '../../../carriers/analytics.js';
import { carrierFiguresSince, carrierTimelineSince, publicRoutes } from '../../deployment.js';
import { formatLocal, formatLocalDate } from '../../../lib/time.js';
import { lineChart, statusChart } from '../../charts.js';
import { html } from '../../html.js';
import { formatNumber, type Section, type Shared, type View } from '../../view.js';

const PERIODS = ['1h', '6h', '24h', '7d', '30d'] as const;
type Period = (typeof PERIODS)[number];
/** The charts' slot per period: 12 to 25 slots of minutes or hours, or Mexico City days. */
const STEP: Record<Period, number | 'day'> = {
  '1h': 300_000,
  '6h': 1_800_000,
  '24h': 3_600_000,
  '7d': 'day',
  '30d': 'day',
};
const BY = ['carrier', 'prefix'] as const;
const COUNTS = ['submitted', 'delivered', 'failed', 'pending'] as const;
const EVENTS = ['throttled', 'refused', 'errors'] as const;

const percent = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)} %`);

/** Volume (handed over) and delivery rate per carrier and slot, by hand-off time. */
async function charts(v: View, ctx: Shared['ctx'], from: number, period: Period) {
  const step = STEP[period];
  const timeline = await carrierTimelineSince(ctx, from, step);
  if (timeline.series.size === 0) return html``;
  const slot = step === 'day' ? v.t('day') : v.t('slot');
  const x = timeline.slots.map((ms) => (step === 'day' ? formatLocalDate(ms) : formatLocal(ms).slice(11, 16)));
  const volume: Record<string, number[]> = {};
  const rate: Record<string, Array<number | null>> = {};
  const labels: Record<string, string> = {};
  for (const [name, s] of timeline.series) {
    volume[name] = s.submitted;
    rate[name] = s.delivered.map((d, i) =>
      d + s.failed[i] === 0 ? null : Math.round((d / (d + s.failed[i])) * 1000) / 10,
    );
    labels[name] = name;
  }
  return html`<h3 id="volume-title">${v.t('analytics_volume')}</h3>
    ${statusChart(v, 'volume-title', x, volume, labels, slot)}
    <h3 id="rate-title">${v.t('analytics_rate')}</h3>
    ${lineChart(
      v,
      'rate-title',
      { x, xLabel: slot, series: rate, labels, unit: ' %', min: 0, max: 100 },
      'rate-chart',
    )}`;
}

/** A row's carrier (and prefix) as data attributes. */
const rowKey = (by: (typeof BY)[number], c: CarrierFigures) =>
  by === 'prefix' ? html`data-carrier="${c.name}" data-prefix="${c.prefix}"` : html`data-carrier="${c.name}"`;

function figuresTable(v: View, by: (typeof BY)[number], figures: CarrierFigures[]) {
  const ms = (n: number | null) => (n === null ? '—' : `${formatNumber(v, n)} ms`);
  return html`<div class="scroll">
    <table class="stack" data-testid="carrier-figures">
      <thead>
        <tr>
          <th scope="col">${v.t('carrier')}</th>
          ${by === 'prefix' ? html`<th scope="col">${v.t('prefix')}</th>` : ''}
          ${COUNTS.map((c) => html`<th scope="col">${v.t(c)}</th>`)}
          <th scope="col">${v.t('carrier_delivery_rate')}</th>
          <th scope="col">${v.t('receipt_time')}</th>
          ${by === 'carrier' ? EVENTS.map((e) => html`<th scope="col">${v.t(e)}</th>`) : ''}
          <th scope="col">${v.t('quality')}</th>
        </tr>
      </thead>
      <tbody>
        ${figures.map(
          (c) =>
            html`<tr ${rowKey(by, c)}>
              <td>${c.name}</td>
              ${by === 'prefix' ? html`<td>${c.prefix ? `+${c.prefix}` : '—'}</td>` : ''}
              ${COUNTS.map((k) => html`<td>${formatNumber(v, c[k])}</td>`)}
              <td>${percent(c.delivery_rate)}</td>
              <td>${ms(c.receipt_p50_ms)} / ${ms(c.receipt_p95_ms)}</td>
              ${by === 'carrier' ? EVENTS.map((e) => html`<td data-event="${e}">${formatNumber(v, c[e] ?? 0)}</td>`) : ''}
              <td data-demoted="${c.demoted}">${c.demoted ? v.t('demoted') : v.t('healthy')}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** Per-carrier figures for the operator: the same as `mensajero carriers stats`, charts over time, each route's strategy. */
export function carrierAnalyticsPage(_scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  return {
    path: '/panel/operator/carriers',
    title: 'carrier_analytics',
    who: 'operator',
    charts: true,
    async render(v) {
      const since = PERIODS.find((p) => p === v.query.since) ?? '1h';
      const by = BY.find((b) => b === v.query.by) ?? 'carrier';
      const from = Date.now() - parseSince(since)!;
      const [figures, routes, chartsHtml] = await Promise.all([
        carrierFiguresSince(ctx, from, by),
        publicRoutes(ctx),
        charts(v, ctx, from, since),
      ]);
      return html`<section class="card" aria-labelledby="analytics-title">
        <h2 id="analytics-title">${v.t('carrier_analytics')}</h2>
        <form method="get" action="/panel/operator/carriers" class="row">
          <label for="since">${v.t('analytics_since')}</label>
          <select id="since" name="since">
            ${PERIODS.map((p) => html`<option value="${p}" ${p === since ? html`selected` : ''}>${p}</option>`)}
          </select>
          <label for="by">${v.t('analytics_by')}</label>
          <select id="by" name="by">
            ${BY.map((b) => html`<option value="${b}" ${b === by ? html`selected` : ''}>${v.t(`analytics_by_${b}`)}</option>`)}
          </select>
          <button type="submit">${v.t('search')}</button>
        </form>
        ${figuresTable(v, by, figures)}
        <p class="help">${v.t('analytics_help')}</p>
        <p class="help">${v.t(by === 'prefix' ? 'analytics_prefix_help' : 'analytics_events_help')}</p>
        ${chartsHtml}
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
