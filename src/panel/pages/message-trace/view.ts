import type { FastifyInstance } from 'fastify';
import { traceFor, type TraceQuery } from '../../../features/messages/service.js';
import { traceSteps } from '../../../features/messages/steps.js';
import { html } from '../../html.js';
import type { Section, Shared } from '../../view.js';

const FIELD = /^[\w.:-]{1,100}$/;

/** What the form asks for: a reference, a full number or a carrier id (the first given); null when none is usable. */
function queryOf(q: Record<string, string | undefined>): TraceQuery | null {
  const value = (q.value ?? '').trim();
  if (!FIELD.test(value)) return null;
  if (q.by === 'number') return /^\d{6,15}$/.test(value) ? { number: value, from: null, to: null } : null;
  if (q.by === 'carrier_id') return { carrierId: value };
  return { reference: value };
}

/** Support: a message's whole history across accounts (the same as `mensajero messages trace`). */
export function messageTracePage(_scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  return {
    path: '/panel/operator/trace',
    title: 'message_trace',
    who: 'operator',
    async render(v) {
      const query = queryOf(v.query);
      const found = query ? (await traceFor(ctx, query)).messages : [];
      const by = v.query.by ?? 'reference';
      return html`<section class="card" aria-labelledby="trace-title">
        <h2 id="trace-title">${v.t('message_trace')}</h2>
        <form method="get" action="/panel/operator/trace" class="row" role="search">
          <label for="trace-by">${v.t('trace_by')}</label>
          <select id="trace-by" name="by">
            ${(['reference', 'number', 'carrier_id'] as const).map(
              (k) => html`<option value="${k}" ${k === by ? html`selected` : ''}>${v.t(`trace_${k}`)}</option>`,
            )}
          </select>
          <label for="trace-value" class="sr">${v.t('trace_value')}</label>
          <input id="trace-value" name="value" value="${v.query.value ?? ''}" maxlength="100" required />
          <button type="submit">${v.t('search')}</button>
        </form>
        ${query && found.length === 0 ? html`<p>${v.t('trace_none')}</p>` : ''}
        ${found.map(
          (m) =>
            html`<article data-reference="${m.reference}">
              <h3>${m.reference} — ${m.account}, ${m.channel} +${m.number}: ${m.status} (${m.status_code ?? '—'})</h3>
              <ol>
                ${traceSteps(m).map((s) => html`<li>${s}</li>`)}
              </ol>
            </article>`,
        )}
      </section>`;
    },
  };
}
