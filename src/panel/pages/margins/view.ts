import type { FastifyInstance } from 'fastify';
import {
  daysOf,
  marginFields,
  marginReport,
  MarginError,
  type MarginBy,
  type MarginRow,
} from '../../../features/margins/service.js';
import { formatLocalDate, parseLocal } from '../../../lib/time.js';
import { lineChart } from '../../charts.js';
import { sendCsv } from '../../csv.js';
import { html } from '../../html.js';
import { formatNumber, makeView, refuse, type Section, type Shared, type View } from '../../view.js';

const BY: MarginBy[] = ['account', 'carrier', 'prefix', 'day'];
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

interface Filters {
  by: MarginBy;
  from: string;
  to: string;
}

/** The form's filters: a grouping, and a period of Mexico City days (default: this month so far). */
function filtersOf(query: Record<string, string | undefined>): Filters {
  const today = formatLocalDate(Date.now());
  const from = (query.from || `${today.slice(0, 8)}01`).trim();
  const to = (query.to || today).trim();
  const isDate = (d: string) => /^\d{4}-\d{2}-\d{2}$/.test(d) && parseLocal(d) !== null;
  if (!isDate(from) || !isDate(to)) throw refuse(400, 'date_invalid');
  return { by: BY.find((b) => b === query.by) ?? 'account', from, to };
}

/** `reports margins` for the filters; a period the service refuses (reversed, over a year) is the person's to fix. */
async function report(v: View, f: Filters, by: MarginBy = f.by) {
  try {
    return await marginReport(v.ctx, { from: f.from, to: f.to, by });
  } catch (err) {
    if (err instanceof MarginError) throw refuse(400, 'period_invalid');
    throw err;
  }
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

  scope.get(
    '/operator/margins/export',
    { schema: { hide: true }, config: { panel: 'operator' } },
    async (request, reply) => {
      const v = makeView(shared.ctx, shared.assets(), request);
      const f = filtersOf(v.query);
      const { rows } = await report(v, f);
      const numbered = rows.map((r, i) => ({ ...r, id: i + 1 }));
      const fields = marginFields(f.by);
      // Rows of the report, in its order; the columns and values are those of `reports margins --csv`.
      return sendCsv(
        reply,
        `margins-${f.by}-${f.from}-${f.to}.csv`,
        fields,
        async (after) => numbered.slice(after, after + 1000),
        (r) => fields.map((field) => String((r as Record<string, unknown>)[field] ?? '')),
        { numeric: new Set([1, 2, 3, 4, 5, 6, 7]) },
      );
    },
  );

  return section;
}
