// The panel's only script (Content-Security-Policy: no inline code). Pages
// work without it; it adds copy buttons and draws the charts with uPlot.
'use strict';

document.addEventListener('click', (event) => {
  const button = event.target.closest('button[data-copy]');
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(() => {
    button.dataset.copied = 'true';
    button.setAttribute('aria-pressed', 'true');
  });
});

const COLORS = { delivered: '#1b7f3b', failed: '#b3261e', pending: '#b26a00', sandbox: '#5f6368' };
/** Series without a color of their own (carriers, money): one of these in turn. */
const PALETTE = ['#3367d6', '#1b7f3b', '#b3261e', '#b26a00', '#6a1b9a', '#00796b', '#5f6368', '#c2185b'];
const colorOf = (key, i) => COLORS[key] || PALETTE[i % PALETTE.length];

/**
 * A stacked bar chart: series are drawn from the tallest running total to the
 * shortest, so each status shows as its own band; the legend shows the
 * status's own count.
 */
function drawStatusChart(el) {
  if (typeof uPlot === 'undefined') return;
  const { days, series, labels, xLabel } = JSON.parse(el.dataset.chart);
  const keys = Object.keys(series);
  const running = keys.map((_, i) =>
    days.map((_, d) => keys.slice(0, i + 1).reduce((sum, k) => sum + series[k][d], 0)),
  );
  const x = days.map((_, i) => i);
  const order = keys.map((_, i) => i).reverse();
  const bars = uPlot.paths.bars({ size: [0.7, days.length === 1 ? 120 : 40] });
  const opts = {
    width: Math.max(260, el.clientWidth),
    height: 260,
    legend: { show: true },
    // Without a pointer over the chart, the legend shows the newest day's (or the campaign's) counts.
    hooks: { ready: [(u) => requestAnimationFrame(() => u.setLegend({ idx: days.length - 1 }))] },
    cursor: { points: { show: false } },
    scales: {
      x: { time: false, range: [-0.5, days.length - 0.5] },
      y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] },
    },
    axes: [
      {
        values: (_u, ticks) =>
          ticks.map((t) =>
            Number.isInteger(t) && days[t] ? (/^\d{4}-/.test(days[t]) ? days[t].slice(5) : days[t]) : '',
          ),
      },
      { values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) },
    ],
    series: [
      { label: xLabel || '', value: (_u, i) => (i === null || days[i] === undefined ? '' : days[i]) },
      ...order.map((i) => ({
        label: labels[keys[i]],
        fill: colorOf(keys[i], i),
        stroke: colorOf(keys[i], i),
        width: 0,
        paths: bars,
        points: { show: false },
        value: (_u, _v, _s, idx) => (idx === null || idx === undefined ? '' : String(series[keys[i]][idx])),
      })),
    ],
  };
  const chart = new uPlot(opts, [x, ...order.map((i) => running[i])], el);
  el.dataset.drawn = 'true';
  new ResizeObserver(() => chart.setSize({ width: Math.max(260, el.clientWidth), height: 260 })).observe(el);
}

/**
 * A line chart (delivery rates, money per day): one line per series, a gap
 * where a value is null; the legend shows the values under the pointer, the
 * newest ones without it.
 */
function drawLineChart(el) {
  if (typeof uPlot === 'undefined') return;
  const { x: labels, xLabel, series, labels: names, unit = '', min, max } = JSON.parse(el.dataset.lineChart);
  const keys = Object.keys(series);
  const shown = (n) => (n === null || n === undefined ? '—' : `${n}${unit}`);
  const opts = {
    width: Math.max(260, el.clientWidth),
    height: 260,
    legend: { show: true },
    hooks: { ready: [(u) => requestAnimationFrame(() => u.setLegend({ idx: labels.length - 1 }))] },
    scales: {
      x: { time: false, range: [-0.5, labels.length - 0.5] },
      y: {
        range: (_u, lo, hi) => [
          min ?? Math.min(0, Math.floor(lo ?? 0)),
          max ?? Math.max(1, Math.ceil((hi ?? 0) * 1.1)),
        ],
      },
    },
    axes: [
      {
        values: (_u, ticks) =>
          ticks.map((t) => (Number.isInteger(t) && labels[t] !== undefined ? labels[t].replace(/^\d{4}-/, '') : '')),
      },
      // Wide enough for 100 % and for money in thousands.
      { size: 64, values: (_u, ticks) => ticks.map((t) => `${t}${unit}`) },
    ],
    series: [
      { label: xLabel, value: (_u, i) => (i === null || labels[i] === undefined ? '' : labels[i]) },
      ...keys.map((k, i) => ({
        label: names[k],
        stroke: colorOf(k, i),
        width: 2,
        points: { show: labels.length <= 60, size: 5 },
        value: (_u, v) => shown(v),
      })),
    ],
  };
  const chart = new uPlot(opts, [labels.map((_, i) => i), ...keys.map((k) => series[k])], el);
  el.dataset.drawn = 'true';
  new ResizeObserver(() => chart.setSize({ width: Math.max(260, el.clientWidth), height: 260 })).observe(el);
}

/**
 * Contact and opt-out imports: the file goes up as text/csv with the form's CSRF
 * token; the answer is either 400 with the errors per line (nothing written) or
 * progress lines (NDJSON) while the rows are written, shown in the <progress> bar.
 */
function startImport(form) {
  const file = form.querySelector('input[type=file]').files[0];
  if (!file) return;
  const bar = form.querySelector('progress');
  const status = form.querySelector('.import-status');
  const list = form.querySelector('.import-errors');
  const button = form.querySelector('button');
  bar.hidden = false;
  bar.value = 0;
  list.hidden = true;
  list.replaceChildren();
  status.textContent = '';
  button.disabled = true;
  const xhr = new XMLHttpRequest();
  xhr.open('POST', form.dataset.import);
  xhr.setRequestHeader('content-type', 'text/csv');
  xhr.setRequestHeader('accept', 'application/json');
  xhr.setRequestHeader('x-csrf-token', form.querySelector('input[name=_csrf]').value);
  let seen = 0;
  let total = 0;
  // A write that stopped midway says how far it got: "nothing was imported" would not be true.
  const showErrors = (errors, message, written) => {
    status.textContent = written ? message : form.dataset.failed + (message ? ' ' + message : '');
    for (const e of errors || []) {
      const item = document.createElement('li');
      item.textContent = `${form.dataset.line} ${e.line}: ${e.message} (${e.code})`;
      list.append(item);
    }
    list.hidden = list.children.length === 0;
  };
  const readLines = () => {
    const text = xhr.responseText;
    const end = text.lastIndexOf('\n') + 1;
    for (const line of text.slice(seen, end).split('\n')) {
      if (!line) continue;
      const msg = JSON.parse(line);
      if (msg.total !== undefined) {
        total = msg.total;
        bar.max = total;
      }
      if (msg.written !== undefined) bar.value = msg.written;
      if (msg.done) status.textContent = form.dataset.done.replace('{count}', String(msg.written));
      if (msg.failed) showErrors(msg.errors, msg.message, msg.written);
    }
    seen = end;
  };
  xhr.onprogress = () => {
    if (xhr.status === 200) readLines();
  };
  xhr.onload = () => {
    button.disabled = false;
    if (xhr.status === 200) {
      readLines();
      const count = form.closest('tr') && form.closest('tr').querySelector('[data-testid=contact-count]');
      if (count && bar.value === total) count.textContent = String(total);
      return;
    }
    bar.hidden = true;
    let body = {};
    try {
      body = JSON.parse(xhr.responseText);
    } catch {
      /* an HTML error page */
    }
    showErrors(body.errors, body.message || '');
  };
  xhr.onerror = () => {
    button.disabled = false;
    showErrors([], '');
  };
  xhr.send(file);
}

document.addEventListener('submit', (event) => {
  const form = event.target.closest('form[data-import]');
  if (!form) return;
  event.preventDefault();
  startImport(form);
});

/**
 * The Send form's live counter: the service computes the GSM-7 length, what
 * transliteration changes and the cost (the same rules as sending), shortly
 * after each change.
 */
function watchPreview(form) {
  const counter = form.querySelector('#counter');
  const changed = form.querySelector('#changed');
  let timer = null;
  let asked = 0;
  const ask = () => {
    const id = ++asked;
    const body = {
      message: form.elements.message.value,
      numbers: form.elements.numbers.value,
      list: form.elements.list.value,
    };
    fetch(form.dataset.preview, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': form.elements._csrf.value },
      body: JSON.stringify(body),
    })
      .then((r) => (r.ok ? r.json() : null))
      .then((p) => {
        if (!p || id !== asked) return;
        counter.textContent =
          counter.dataset.format
            .replace('{length}', p.length)
            .replace('{max}', p.max)
            .replace('{recipients}', p.recipients)
            .replace('{cost}', p.cost) + (p.problem ? ` · ${p.problem}` : '');
        counter.classList.toggle('over', p.length > p.max);
        changed.textContent = p.changed.length ? `${counter.dataset.changed} ${p.changed.join(', ')}` : '';
      });
  };
  form.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(ask, 150);
  });
}

/** Labels each cell of a stacked table with its column's header (for phones, see panel.css). */
function labelCells(table) {
  const headers = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
  for (const row of table.querySelectorAll('tbody tr')) {
    [...row.children].forEach((cell, i) => {
      if (cell.tagName === 'TD' && headers[i]) cell.dataset.label = headers[i];
    });
  }
}

document.addEventListener('DOMContentLoaded', () => {
  for (const table of document.querySelectorAll('table.stack')) labelCells(table);
  for (const el of document.querySelectorAll('[data-chart]')) drawStatusChart(el);
  for (const el of document.querySelectorAll('[data-line-chart]')) drawLineChart(el);
  for (const form of document.querySelectorAll('form[data-preview]')) watchPreview(form);
});
