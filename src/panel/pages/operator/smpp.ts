import type { FastifyInstance } from 'fastify';
import { shownEmail } from '../../../accounts/subaccount-email.js';
import { systemId, SmppUserProblem } from '../../../features/smpp-users/schemas.js';
import { closeBind, type BindRow } from '../../../features/smpp-users/service.js';
import { html } from '../../html.js';
import { shownTime } from '../../time.js';
import {
  csrfField,
  field,
  formatNumber,
  refuse,
  registerAction,
  type Section,
  type Shared,
  type View,
  wordOr,
} from '../../view.js';

/** Customers' live SMPP binds across the deployment, as `mensajero smpp-users binds` lists them, each with a close button. */
export function smppBindsCard(v: View, binds: BindRow[]) {
  return html`<section class="card" aria-labelledby="smpp-binds-title">
    <h2 id="smpp-binds-title">${v.t('smpp_binds')}</h2>
    ${
      binds.length === 0
        ? html`<p>${v.t('smpp_binds_none')}</p>`
        : html`<div class="scroll">
            <table class="stack" data-testid="smpp-binds">
              <thead>
                <tr>
                  <th scope="col">${v.t('smpp_system_id')}</th>
                  <th scope="col">${v.t('email')}</th>
                  <th scope="col">${v.t('smpp_bind_type')}</th>
                  <th scope="col">${v.t('smpp_remote_address')}</th>
                  <th scope="col">${v.t('smpp_process')}</th>
                  <th scope="col">${v.t('smpp_since')}</th>
                  <th scope="col">${v.t('smpp_counters')}</th>
                  <th scope="col">${v.t('smpp_delivered')}</th>
                  <th scope="col">${v.t('actions')}</th>
                </tr>
              </thead>
              <tbody>
                ${binds.map((b) => bindRow(v, b))}
              </tbody>
            </table>
          </div>`
    }
    <p class="help">${v.t('smpp_binds_help')}</p>
  </section>`;
}

function bindRow(v: View, b: BindRow) {
  return html`<tr data-system-id="${b.system_id}" data-slot="${b.slot}">
    <td>${b.system_id}</td>
    <td>${shownEmail(b.email)}</td>
    <td>${wordOr(v, 'smpp_bind_', b.bind)}</td>
    <td>${b.address}</td>
    <td>${b.process}</td>
    <td>${shownTime(v, b.since_ms)}</td>
    <td>${formatNumber(v, b.submitted)}</td>
    <td>${formatNumber(v, b.delivered)}</td>
    <td>
      <form method="post" action="/panel/operator/close-bind">
        ${csrfField(v)}<input type="hidden" name="system_id" value="${b.system_id}" /><input
          type="hidden"
          name="slot"
          value="${b.slot}"
        /><input type="hidden" name="since" value="${b.since_ms}" />
        <button
          type="submit"
          class="small danger"
          aria-label="${v.t('smpp_close_bind_of', { id: b.system_id, address: b.address })}"
        >
          ${v.t('smpp_close_bind')}
        </button>
      </form>
    </td>
  </tr>`;
}

const wholeNumber = (text: string, max: number): number | undefined => {
  const n = Number(text);
  return /^\d{1,16}$/.test(text) && n <= max ? n : undefined;
};

/**
 * Closes one bind: its row goes, and the process that holds it (this one or
 * another) unbinds the customer at its next renewal, as `smpp-users kick` does
 * for all of a user's binds.
 */
export function registerCloseBind(scope: FastifyInstance, shared: Shared, section: Section): void {
  registerAction(
    scope,
    shared,
    section,
    'close-bind',
    async (_request, _v, body) => {
      let id: string;
      try {
        id = systemId(field(body, 'system_id'));
      } catch (err) {
        if (err instanceof SmppUserProblem) throw refuse(404, 'smpp_bind_gone');
        throw err;
      }
      const slot = wholeNumber(field(body, 'slot'), 1000);
      const since = wholeNumber(field(body, 'since'), Number.MAX_SAFE_INTEGER);
      if (slot === undefined || since === undefined) throw refuse(404, 'smpp_bind_gone');
      if (!(await closeBind(shared.ctx, id, slot, since))) throw refuse(404, 'smpp_bind_gone');
      return { done: 'smpp_bind_closed' };
    },
    'smpp-users.close-bind',
  );
}
