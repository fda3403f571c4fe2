import type { FastifyInstance } from 'fastify';
import { daysOf, type MarginBy, type MarginRow } from '../../../features/reports/margins.js';
import { lineChart } from '../../charts.js';
import { html } from '../../html.js';
import { formatNumber, type Section, type Shared, type View } from '../../view.js';
import { BY, filtersOf, report, type Filters } from './report.js';
import { registerMarginActions } from './actions.js';
import { coversFrom } from '../../covers-from.js';

const MONEY = ['revenue', 'cost', 'margin'] as const;
const COUNTS = ['parts', 'delivered', 'failed'] as const;
/** The table's columns after the grouping, in the order of the report's fields. */
const COLUMNS = [...COUNTS, 'revenue', 'cost', 'cost_unknown', 'margin'] as const;
type Column = (typeof COLUMNS)[number];

const isMoney = (c: Column): c is (typeof MONEY)[number] => (MONEY as readonly string[]).includes(c);

function columnHeading(v: View, c: Column, currency: string) {
  return isMoney(c) ? html`<th scope="col">${v.t(c)} (${currency})</th>` : html`<th scope="col">${v.t(c)}</th>`;
}

/** A cell of a row or of the totals; a count of messages with no carrier cost known is flagged. */
function cell(v: View, c: Column, r: MarginRow) {
  if (isMoney(c)) return html`<td>${r[c]}</td>`;
  if (c === 'cost_unknown' && r.cost_unknown > 0)
    return html`<td class="cost-unknown" data-testid="cost-unknown" title="${v.t('margins_cost_unknown_help')}">
      ${formatNumber(v, r.cost_unknown)}
    </td>`;
  return html`<td>${formatNumber(v, r[c])}</td>`;
}

const keyOf = (by: MarginBy, row: MarginRow) => String((row as Record<string, unknown>)[by] ?? '');

function keyCell(v: View, by: MarginBy, key: string) {
  if (key !== '') return by === 'prefix' ? `+${key}` : key;
  return by === 'prefix' ? v.t('margins_no_prefix') : by === 'carrier' ? v.t('margins_no_carrier') : key;
}

/** Revenue, cost and margin per day of the period (0 on a day without messages). */
function dailyChart(v: View, f: Filters, currency: string, daily: MarginRow[]) {
  const byDay = new Map(daily.map((r) => [keyOf('day', r), r]));
  const days = daysOf(f.from, f.to);
  const series = Object.fromEntries(MONEY.map((m) => [m, days.map((d) => Number(byDay.get(d)?.[m] ?? 0))])) as Record<
    (typeof MONEY)[number],
    number[]
  >;
  const labels = Object.fromEntries(MONEY.map((m) => [m, `${v.t(m)} (${currency})`]));
  return lineChart(v, 'margins-chart-title', { x: days, xLabel: v.t('day'), series, labels }, 'margins-chart');
}

/** The operator's margins: the same report as `mensajero reports margins`, a chart per day, and its CSV. */
export function marginsPage(scope: FastifyInstance, shared: Shared): Section {
  const section: Section = {
    path: '/panel/operator/margins',
    title: 'margins',
    who: 'operator',
    charts: true,
    async render(v) {
      const f = filtersOf(v.query);
      const shown = await report(v, f);
      const daily = f.by === 'day' ? shown : await report(v, f, 'day');
      const csv = `/panel/operator/margins/export?${new URLSearchParams({ ...f })}`;
      return html`<section class="card" aria-labelledby="margins-title">
        <h2 id="margins-title">${v.t('margins')}</h2>
        <form method="get" action="/panel/operator/margins" class="row">
          <label for="by">${v.t('margins_by')}</label>
          <select id="by" name="by">
            ${BY.map((b) => html`<option value="${b}" ${b === f.by ? html`selected` : ''}>${v.t(`margins_by_${b}`)}</option>`)}
          </select>
          <label for="from">${v.t('from')}</label><input id="from" name="from" type="date" value="${f.from}" required />
          <label for="to">${v.t('to')}</label><input id="to" name="to" type="date" value="${f.to}" required />
          <button type="submit">${v.t('filter')}</button>
        </form>
        <p><a href="${csv}" data-testid="margins-csv" download>${v.t('export_csv')}</a></p>
        <p class="help">${v.t('margins_help')}</p>
        ${coversFrom(v)}
        ${
          shown.totals.cost_unknown > 0
            ? html`<p class="warning" role="status" data-testid="margins-cost-unknown">
                ${v.t('margins_cost_unknown', { count: String(shown.totals.cost_unknown) })}
              </p>`
            : ''
        }
        <h3 id="margins-chart-title">${v.t('margins_chart', { currency: shown.currency })}</h3>
        ${dailyChart(v, f, shown.currency, daily.rows)}
        ${
          shown.rows.length === 0
            ? html`<p>${v.t('margins_none')}</p>`
            : html`<div class="scroll">
                <table class="stack" data-testid="margins">
                  <thead>
                    <tr>
                      <th scope="col">${v.t(`margins_by_${f.by}`)}</th>
                      ${COLUMNS.map((c) => columnHeading(v, c, shown.currency))}
                    </tr>
                  </thead>
                  <tbody>
                    ${shown.rows.map(
                      (r) =>
                        html`<tr data-key="${keyOf(f.by, r)}">
                          <td>${keyCell(v, f.by, keyOf(f.by, r))}</td>
                          ${COLUMNS.map((c) => cell(v, c, r))}
                        </tr>`,
                    )}
                  </tbody>
                  <tfoot>
                    <tr data-testid="margins-totals">
                      <th scope="row">${v.t('total')}</th>
                      ${COLUMNS.map((c) => cell(v, c, shown.totals))}
                    </tr>
                  </tfoot>
                </table>
              </div>`
        }
      </section>`;
    },
  };

  registerMarginActions(scope, shared, section);
  return section;
}
