import type { FastifyInstance } from 'fastify';
import { auditLog } from '../../../audit/service.js';
import { html } from '../../html.js';
import { shownTime } from '../../time.js';
import { wordOr, type Section, type Shared, type View } from '../../view.js';

/** An entry's detail as the panel's words for its fields and their values, one pair a line (snake_case or camelCase keys). */
function detailPairs(v: View, detail: unknown) {
  if (detail === null || detail === undefined) return '';
  if (typeof detail !== 'object' || Array.isArray(detail)) return html`<span>${JSON.stringify(detail)}</span>`;
  return html`<dl class="pairs">
    ${Object.entries(detail as Record<string, unknown>).map(([key, value]) => {
      const field = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      const label = wordOr(v, 'audit_key_', field).replaceAll('_', ' ');
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      return html`<div>
        <dt>${label}</dt>
        <dd>${text}</dd>
      </div>`;
    })}
  </dl>`;
}

/** Entries the page shows, newest first. */
export const AUDIT_SHOWN = 200;

/** The operator's audit log: the same entries as `mensajero audit list`, any age, filtered by who made them. */
export function auditPage(_scope: FastifyInstance, shared: Shared): Section {
  return {
    path: '/panel/operator/audit',
    title: 'audit_log',
    who: 'operator',
    async render(v) {
      const actor = (v.query.actor ?? '').trim().slice(0, 400);
      const entries = await auditLog(shared.ctx, {
        since: 0,
        actor: actor === '' ? undefined : actor,
        limit: AUDIT_SHOWN,
      });
      return html`<section class="card" aria-labelledby="audit-title">
        <h2 id="audit-title">${v.t('audit_log')}</h2>
        <p class="help">${v.t('audit_help')}</p>
        <form method="get" action="/panel/operator/audit" class="row" role="search">
          <label for="actor">${v.t('audit_actor_filter')}</label>
          <input id="actor" name="actor" type="search" value="${actor}" />
          <button type="submit">${v.t('filter')}</button>
        </form>
        ${
          entries.length === 0
            ? html`<p>${v.t('audit_none')}</p>`
            : html`<div class="scroll">
                <table class="stack" data-testid="audit">
                  <thead>
                    <tr>
                      <th scope="col">${v.t('audit_at')}</th>
                      <th scope="col">${v.t('audit_actor')}</th>
                      <th scope="col">${v.t('audit_action')}</th>
                      <th scope="col">${v.t('audit_target')}</th>
                      <th scope="col">${v.t('audit_detail')}</th>
                      <th scope="col">${v.t('audit_address')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${entries.map(
                      (e) =>
                        html`<tr data-action="${e.action}">
                          <td>${shownTime(v, e.at)}</td>
                          <td>${e.actor}</td>
                          <td>${e.action}</td>
                          <td>${e.target ?? ''}</td>
                          <td class="detail">${detailPairs(v, e.detail)}</td>
                          <td>${e.address ?? ''}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
        }
      </section>`;
    },
  };
}
