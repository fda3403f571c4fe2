import { html, type Html } from './html.js';
import type { View } from './view.js';

/** A line chart's data: one value (or null, a gap) per x label and series. */
export interface LineChartData {
  x: string[];
  xLabel: string;
  series: Record<string, Array<number | null>>;
  labels: Record<string, string>;
  /** Appended to the values shown (" %"). */
  unit?: string;
  /** Fixed bounds of the y axis (a rate: 0 and 100); otherwise from the values, 0 included. */
  min?: number;
  max?: number;
}

/**
 * A line chart drawn by panel.js with uPlot from its data-line-chart
 * attribute, and the same numbers as a table for screen readers and without
 * scripts (a gap shows as —).
 */
export function lineChart(v: View, labelledBy: string, data: LineChartData, testId: string): Html {
  const keys = Object.keys(data.series);
  const cell = (n: number | null) => (n === null ? '—' : `${n}${data.unit ?? ''}`);
  return html`<div
      class="chart"
      data-line-chart="${JSON.stringify(data)}"
      data-testid="${testId}"
      role="img"
      aria-labelledby="${labelledBy}"
    ></div>
    <details>
      <summary>${v.t('chart_table')}</summary>
      <div class="scroll">
        <table data-testid="${testId}-table">
          <thead>
            <tr>
              <th scope="col">${data.xLabel}</th>
              ${keys.map((k) => html`<th scope="col">${data.labels[k]}</th>`)}
            </tr>
          </thead>
          <tbody>
            ${data.x.map(
              (x, i) =>
                html`<tr>
                  <th scope="row">${x}</th>
                  ${keys.map((k) => html`<td data-series="${k}">${cell(data.series[k][i])}</td>`)}
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </details>`;
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
