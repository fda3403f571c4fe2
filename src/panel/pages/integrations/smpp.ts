import type { FastifyInstance } from 'fastify';
import { smppPassword, SmppUserProblem, type SmppUserSettings } from '../../../features/smpp-users/schemas.js';
import { setOwnSmppPassword } from '../../../features/smpp-users/service.js';
import { html } from '../../html.js';
import {
  accountOf,
  csrfField,
  field,
  formatNumber,
  refuse,
  registerAction,
  type Section,
  type Shared,
  type View,
} from '../../view.js';

type ShownUser = SmppUserSettings & { binds: number };

/**
 * The account's own SMPP users (a sub-account sees only its own): their
 * limits, how many binds each has open across the deployment, and a form to
 * set a new password. The settings themselves are the operator's. An account
 * without SMPP users (most of them) sees no SMPP card at all.
 */
export function smppUsersCard(v: View, users: ShownUser[]) {
  if (users.length === 0) return html``;
  return html`<section class="card" aria-labelledby="smpp-title" id="smpp">
    <h2 id="smpp-title">${v.t('smpp_users')}</h2>
    <p class="help">${v.t('smpp_users_help')}</p>
    <div class="scroll">
      <table class="stack" data-testid="smpp-users">
        <thead>
          <tr>
            <th scope="col">${v.t('smpp_system_id')}</th>
            <th scope="col">${v.t('smpp_max_binds')}</th>
            <th scope="col">${v.t('smpp_throughput')}</th>
            <th scope="col">${v.t('smpp_window')}</th>
            <th scope="col">${v.t('smpp_allow_list')}</th>
            <th scope="col">${v.t('smpp_live_binds')}</th>
            <th scope="col">${v.t('smpp_new_password')}</th>
          </tr>
        </thead>
        <tbody>
          ${users.map((u, i) => userRow(v, u, i))}
        </tbody>
      </table>
    </div>
    <p id="smpp-password-help" class="help">${v.t('smpp_password_help')}</p>
  </section>`;
}

function userRow(v: View, u: ShownUser, i: number) {
  return html`<tr data-system-id="${u.system_id}">
    <td>${u.system_id}</td>
    <td>${formatNumber(v, u.max_binds)}</td>
    <td>${u.throughput === 0 ? v.t('smpp_no_cap') : formatNumber(v, u.throughput)}</td>
    <td>${formatNumber(v, u.window)}</td>
    <td>${u.allow_ip.length === 0 ? v.t('smpp_allow_account') : u.allow_ip.join(', ')}</td>
    <td data-testid="smpp-binds">${formatNumber(v, u.binds)}</td>
    <td>
      <form method="post" action="/panel/integrations/smpp-password" class="row">
        ${csrfField(v)}<input type="hidden" name="system_id" value="${u.system_id}" />
        <label class="sr" for="smpp-password-${i}">${v.t('smpp_new_password_for', { id: u.system_id })}</label>
        <input
          id="smpp-password-${i}"
          name="password"
          type="password"
          autocomplete="new-password"
          maxlength="8"
          size="9"
          required
          aria-describedby="smpp-password-help"
        />
        <button type="submit" class="small">${v.t('smpp_set_password')}</button>
      </form>
    </td>
  </tr>`;
}

/** The new password of one of the account's SMPP users: checked as the CLI checks it, stored hashed by the same service. */
export function registerSmppPassword(scope: FastifyInstance, shared: Shared, section: Section): void {
  registerAction(scope, shared, section, 'smpp-password', async (_request, v, body) => {
    const systemId = field(body, 'system_id');
    let password: string;
    try {
      password = smppPassword(typeof body.password === 'string' ? body.password : '');
    } catch (err) {
      if (err instanceof SmppUserProblem) throw refuse(400, 'smpp_password_rules');
      throw err;
    }
    if (systemId === '' || systemId.length > 15) throw refuse(404, 'smpp_user_unknown');
    if (!(await setOwnSmppPassword(shared.ctx, accountOf(v).id, systemId, password)))
      throw refuse(404, 'smpp_user_unknown');
    return { done: 'smpp_password_set' };
  });
}
