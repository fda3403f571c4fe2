import type { ListedEpisode } from '../../../alerts/index.js';
import { html } from '../../html.js';
import { wordOr, type View } from '../../view.js';
import { shownTime } from '../../time.js';

/** Episodes the operator view lists, newest first. */
export const ALERTS_SHOWN = 20;

/** Open and recent alert episodes, as `mensajero alerts list` shows them. */
export function alertsCard(v: View, episodes: ListedEpisode[]) {
  return html`<section class="card" aria-labelledby="alerts-title">
    <h2 id="alerts-title">${v.t('alerts_title')}</h2>
    ${
      episodes.length === 0
        ? html`<p>${v.t('alerts_none')}</p>`
        : html`<div class="scroll">
            <table class="stack" data-testid="alerts">
              <thead>
                <tr>
                  <th scope="col">${v.t('alert_type')}</th>
                  <th scope="col">${v.t('alert_subject')}</th>
                  <th scope="col">${v.t('alert_state')}</th>
                  <th scope="col">${v.t('alert_since')}</th>
                  <th scope="col">${v.t('alert_closed_at')}</th>
                </tr>
              </thead>
              <tbody>
                ${episodes.map(
                  (e) =>
                    html`<tr data-alert="${e.type}" data-state="${e.state}">
                      <td>${wordOr(v, 'alert_', e.type)}</td>
                      <td>${e.subject === '' ? v.t('alert_queue') : e.subject}</td>
                      <td>${e.state === 'open' ? v.t('alert_open') : v.t('alert_closed')}</td>
                      <td>${shownTime(v, e.since)}</td>
                      <td>${e.closed_at ? shownTime(v, e.closed_at) : ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}
