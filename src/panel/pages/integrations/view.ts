import type { FastifyInstance } from 'fastify';
import type { Account } from '../../../accounts/index.js';
import { accountWebhook, deliveryLog, type LoggedEvent, type Webhook } from '../../../webhooks/service.js';
import type { EventState } from '../../../webhooks/tables.js';
import { ownSmppUsers } from '../../../features/smpp-users/service.js';
import { shownTime } from '../../time.js';
import { html } from '../../html.js';
import { smppUsersCard } from './smpp.js';
import { registerIntegrationsActions } from './actions.js';
import { accountOf, csrfField, type Section, type Shared, type View } from '../../view.js';

const STATES: EventState[] = ['pending', 'delivered', 'failed', 'not_delivered', 'cancelled'];
const TYPES = ['confirmation', 'response'] as const;

/** Everything the spec says is done "in the panel": API key, allow-list, webhook, signing secret, delivery log; and SMPP users. */
export function integrationsPage(scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  const section: Section = {
    path: '/panel/integrations',
    title: 'integrations',
    who: 'account',
    async render(v, shown = {}) {
      const account = accountOf(v);
      const state = STATES.find((s) => s === v.query.state);
      const type = TYPES.find((s) => s === v.query.type);
      const [hook, events, smppUsers] = await Promise.all([
        accountWebhook(ctx, account.id),
        deliveryLog(ctx, account.id, { limit: 50, state, type }),
        ownSmppUsers(ctx, account.id),
      ]);
      return html`${keyCard(v, shown)} ${allowListCard(v, account)} ${webhookCard(v, account, hook, shown)}
      ${smppUsersCard(v, smppUsers)} ${deliveryLogCard(v, events, state, type)}`;
    },
  };
  registerIntegrationsActions(scope, shared, section);
  return section;
}

/** The API key: hidden until the password is typed again, and the button that rotates it. */
function keyCard(v: View, shown: Record<string, unknown>) {
  return html`<section class="card" aria-labelledby="key-title">
    <h2 id="key-title">${v.t('api_key')}</h2>
    ${
      typeof shown.apikey === 'string'
        ? html`<p class="secret">
            <code data-testid="api-key" id="api-key">${shown.apikey}</code>
            <button type="button" data-copy="api-key">${v.t('copy')}</button>
          </p>`
        : html`<p>${v.t('api_key_hidden')}</p>
            <form method="post" action="/panel/integrations/reveal-key" class="row">
              ${csrfField(v)}
              <label for="key-password">${v.t('password')}</label>
              <input id="key-password" name="password" type="password" autocomplete="current-password" required />
              <button type="submit">${v.t('reveal')}</button>
            </form>`
    }
    <form method="post" action="/panel/integrations/rotate-key" class="row">
      ${csrfField(v)}
      <button type="submit" data-testid="rotate-key" class="danger" aria-describedby="rotate-help">
        ${v.t('rotate_key')}
      </button>
      <span id="rotate-help" class="help">${v.t('rotate_key_help')}</span>
    </form>
  </section>`;
}

/** The API's IP allow-list, and whether the panel applies it too. */
function allowListCard(v: View, account: Account) {
  const allow = account.allow_ips ? (JSON.parse(account.allow_ips) as string[]) : [];
  return html`<section class="card" aria-labelledby="allow-title">
    <h2 id="allow-title">${v.t('allow_list')}</h2>
    <form method="post" action="/panel/integrations/allow-list">
      ${csrfField(v)}
      <label for="allow">${v.t('allow_list')}</label>
      <textarea id="allow" name="allow" rows="4" aria-describedby="allow-help" spellcheck="false">
${allow.join('\n')}</textarea>
      <p id="allow-help" class="help">${v.t('allow_list_help')}</p>
      <label
        ><input
          type="checkbox"
          name="panel_allow_ip"
          value="1"
          aria-describedby="panel-allow-help"
          ${account.panel_allow_ip === 1 ? html` checked` : ''}
        />
        ${v.t('panel_allow_ip')}</label
      >
      <p id="panel-allow-help" class="help">${v.t('panel_allow_ip_help')}</p>
      <button type="submit">${v.t('save')}</button>
    </form>
  </section>`;
}

/** The webhook: address, status, method, a test event, and its signing secret. */
function webhookCard(v: View, account: Account, hook: Webhook | undefined, shown: Record<string, unknown>) {
  return html`<section class="card" aria-labelledby="hook-title">
    <h2 id="hook-title">${v.t('webhook')}</h2>
    ${hook ? '' : html`<p>${v.t('webhook_none')}</p>`}
    <form method="post" action="/panel/integrations/webhook">
      ${csrfField(v)}
      <label for="hook-url">${v.t('webhook_url')}</label>
      <input id="hook-url" name="url" type="url" required value="${hook?.url ?? ''}" />
      <fieldset>
        <legend>${v.t('webhook_status')}</legend>
        <label
          ><input type="radio" name="status" value="1" ${!hook || hook.status === 1 ? html` checked` : ''} />
          ${v.t('enabled')}</label
        >
        <label
          ><input type="radio" name="status" value="0" ${hook?.status === 0 ? html` checked` : ''} />
          ${v.t('disabled')}</label
        >
      </fieldset>
      <button type="submit">${v.t('save')}</button>
    </form>
    <form method="post" action="/panel/integrations/webhook-method" class="row">
      ${csrfField(v)}
      <label for="hook-method">${v.t('webhook_method')}</label>
      <select id="hook-method" name="method">
        ${(['POST', 'GET'] as const).map((m) => html`<option${account.webhook_method === m ? html` selected` : ''}>${m}</option>`)}
      </select>
      <button type="submit">${v.t('save')}</button>
    </form>
    ${
      hook
        ? html`<div class="row">
            <form method="post" action="/panel/integrations/test-event">
              ${csrfField(v)}<button type="submit">${v.t('test_event')}</button>
            </form>
            <form method="post" action="/panel/integrations/webhook-delete">
              ${csrfField(v)}<button type="submit" class="danger">${v.t('delete')}</button>
            </form>
          </div>`
        : ''
    }
    <h3>${v.t('signing_secret')}</h3>
    ${
      typeof shown.secret === 'string'
        ? html`<p class="secret">
            <code id="webhook-secret" data-testid="webhook-secret">${shown.secret}</code>
            <button type="button" data-copy="webhook-secret">${v.t('copy')}</button>
          </p>`
        : html`<p>${v.t('secret_hidden')}</p>
            <form method="post" action="/panel/integrations/reveal-secret" class="row">
              ${csrfField(v)}
              <label for="secret-password">${v.t('password')}</label>
              <input id="secret-password" name="password" type="password" autocomplete="current-password" required />
              <button type="submit">${v.t('reveal')}</button>
            </form>`
    }
    <form method="post" action="/panel/integrations/rotate-secret">
      ${csrfField(v)}<button type="submit" class="danger">${v.t('rotate_secret')}</button>
    </form>
  </section>`;
}

/** The delivery log, filtered by state and type, with redelivery (one event, or every failed one since a day). */
function deliveryLogCard(
  v: View,
  events: LoggedEvent[],
  state: EventState | undefined,
  type: (typeof TYPES)[number] | undefined,
) {
  return html`<section class="card" aria-labelledby="log-title" id="log">
    <h2 id="log-title">${v.t('delivery_log')}</h2>
    <form method="get" action="/panel/integrations#log" class="row">
      <label for="f-state">${v.t('state')}</label>
      <select id="f-state" name="state">
        <option value="">${v.t('any')}</option>
        ${STATES.map((s) => html`<option${s === state ? html` selected` : ''}>${s}</option>`)}
      </select>
      <label for="f-type">${v.t('type')}</label>
      <select id="f-type" name="type">
        <option value="">${v.t('any')}</option>
        ${TYPES.map((s) => html`<option${s === type ? html` selected` : ''}>${s}</option>`)}
      </select>
      <button type="submit">${v.t('filter')}</button>
    </form>
    <form method="post" action="/panel/integrations/redeliver-failed" class="row">
      ${csrfField(v)}
      <label for="since">${v.t('redeliver_since')}</label>
      <input id="since" name="since" type="date" required />
      <button type="submit">${v.t('redeliver')}</button>
    </form>
    ${
      events.length === 0
        ? html`<p>${v.t('no_events')}</p>`
        : html`<div class="scroll">
            <table class="stack" data-testid="delivery-log">
              <thead>
                <tr>
                  <th scope="col">${v.t('created')}</th>
                  <th scope="col">${v.t('type')}</th>
                  <th scope="col">${v.t('reference')}</th>
                  <th scope="col">${v.t('state')}</th>
                  <th scope="col">${v.t('attempts')}</th>
                  <th scope="col">${v.t('last_result')}</th>
                  <th scope="col">${v.t('actions')}</th>
                </tr>
              </thead>
              <tbody>
                ${events.map(
                  ({ event: e }) =>
                    html`<tr data-event="${e.id}">
                      <td>${shownTime(v, Number(e.created_at))}</td>
                      <td>${e.type}</td>
                      <td>${e.reference}</td>
                      <td data-testid="event-state">${e.state}</td>
                      <td>${e.attempts}</td>
                      <td>${e.last_status !== null ? `HTTP ${e.last_status}` : ''} ${e.last_error ?? ''}</td>
                      <td>
                        ${e.state === 'pending' ? '' : html`<form method="post" action="/panel/integrations/redeliver">${csrfField(v)}<input type="hidden" name="id" value="${e.id}" /><button type="submit" class="small">${v.t('redeliver')}</button></form>`}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}
