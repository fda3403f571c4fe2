import type { FastifyInstance } from 'fastify';
import { currentKey, rotateKey } from '../../../accounts/index.js';
import { allowListAdmits, normaliseAllowList } from '../../../auth/allow-list.js';
import { panelAccount } from '../../session.js';
import {
  addWebhook,
  changeStatus,
  findWebhook,
  listEvents,
  redeliver,
  removeWebhook,
  rotateWebhookSecret,
  urlIsWellFormed,
  webhookSecret,
} from '../../../webhooks/service.js';
import { webhookAddLimit } from '../../../http/rate-limit.js';
import { localDay } from '../../../features/reports/service.js';
import type { EventState } from '../../../webhooks/tables.js';
import { formatLocal } from '../../../lib/time.js';
import { html } from '../../html.js';
import { confirmPassword } from '../../confirm.js';
import { ownSmppUsers } from '../../../features/smpp-users/service.js';
import { registerSmppPassword, smppUsersCard } from './smpp.js';
import { sendTestEvent } from './test-event.js';
import { accountOf, csrfField, field, refuse, registerAction, type Section, type Shared } from '../../view.js';

const STATES: EventState[] = ['pending', 'delivered', 'failed', 'not_delivered', 'cancelled'];
const TYPES = ['confirmation', 'response'] as const;

/** Everything the spec says is done "in the panel": API key, allow-list, webhook, signing secret, delivery log; and SMPP users. */
export function integrationsPage(scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  const db = ctx.db.kysely;
  const section: Section = {
    path: '/panel/integrations',
    title: 'integrations',
    who: 'account',
    async render(v, shown = {}) {
      const account = accountOf(v);
      const state = STATES.find((s) => s === v.query.state);
      const type = TYPES.find((s) => s === v.query.type);
      const [hook, events, smppUsers] = await Promise.all([
        findWebhook(db, account.id),
        listEvents(db, account.id, { failedOnly: false, limit: 50, state, type }),
        ownSmppUsers(ctx.db, account.id),
      ]);
      const allow = account.allow_ips ? (JSON.parse(account.allow_ips) as string[]) : [];
      return html` <section class="card" aria-labelledby="key-title">
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
        </section>

        <section class="card" aria-labelledby="allow-title">
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
        </section>

        <section class="card" aria-labelledby="hook-title">
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
                    <input
                      id="secret-password"
                      name="password"
                      type="password"
                      autocomplete="current-password"
                      required
                    />
                    <button type="submit">${v.t('reveal')}</button>
                  </form>`
          }
          <form method="post" action="/panel/integrations/rotate-secret">
            ${csrfField(v)}<button type="submit" class="danger">${v.t('rotate_secret')}</button>
          </form>
        </section>

        ${smppUsersCard(v, smppUsers)}

        <section class="card" aria-labelledby="log-title" id="log">
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
                            <td>${formatLocal(Number(e.created_at))}</td>
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
    },
  };

  registerAction(scope, shared, section, 'reveal-key', async (request, v, body) => {
    const account = accountOf(v);
    await confirmPassword(request, v, account.password_hash, account.email, body.password);
    return { shown: { apikey: await currentKey(db, ctx.secrets.keyEncryption, account.id) } };
  });

  // One click, no password: rotating is the remedy for a leaked key. The new key is shown once, to the person who made it.
  registerAction(scope, shared, section, 'rotate-key', async (_request, v) => {
    const apikey = await db.transaction().execute((trx) => rotateKey(trx, ctx.secrets.keyEncryption, accountOf(v).id));
    return { shown: { apikey } };
  });

  registerAction(scope, shared, section, 'allow-list', async (request, v, body) => {
    const entries = field(body, 'allow')
      .split(/[\s,]+/)
      .filter((e) => e !== '');
    if (entries.length > 100)
      throw refuse(400, 'allow_list_invalid', { entry: entries.slice(100).join(' ').slice(0, 60) });
    let allow: string[];
    try {
      allow = normaliseAllowList(entries);
    } catch (err) {
      throw refuse(400, 'allow_list_invalid', { entry: (err as Error).message.replace(/^.*: /, '').slice(0, 80) });
    }
    const id = accountOf(v).id;
    const settings = {
      allow_ips: allow.length === 0 ? null : JSON.stringify(allow),
      panel_allow_ip: body.panel_allow_ip === '1' ? 1 : 0,
    };
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('accounts').set(settings).where('id', '=', id).execute();
      // Read back as the panel will apply it (a parent's setting included): nobody shuts their own browser out by mistake.
      const after = await panelAccount(trx, id);
      if (after && !allowListAdmits(after.panel_allow_ips, request.ip)) {
        throw refuse(400, 'allow_list_locks_you_out', { ip: request.ip });
      }
    });
    return { done: 'allow_list_saved' };
  });

  registerAction(scope, shared, section, 'webhook', async (_request, v, body) => {
    const url = field(body, 'url');
    if (!urlIsWellFormed(url)) throw refuse(400, 'webhook_url');
    const account = accountOf(v);
    // The same budget as /webhook/add: each registration costs a DNS lookup and an outbound request.
    await webhookAddLimit(ctx).consume(account.parent_id ?? account.id);
    await addWebhook(ctx, account.id, url, body.status === '0' ? 0 : 1);
    return { done: 'webhook_saved' };
  });

  registerAction(scope, shared, section, 'webhook-status', async (_request, v, body) => {
    await changeStatus(ctx, accountOf(v).id, body.status === '0' ? 0 : 1);
    return { done: 'webhook_saved' };
  });

  registerAction(scope, shared, section, 'webhook-method', async (_request, v, body) => {
    const method = field(body, 'method').toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw refuse(400, 'webhook_method');
    await db.updateTable('accounts').set({ webhook_method: method }).where('id', '=', accountOf(v).id).execute();
    return { done: 'webhook_saved' };
  });

  registerAction(scope, shared, section, 'webhook-delete', async (_request, v) => {
    await removeWebhook(ctx, accountOf(v).id);
    return { done: 'webhook_deleted' };
  });

  registerAction(scope, shared, section, 'reveal-secret', async (request, v, body) => {
    const account = accountOf(v);
    await confirmPassword(request, v, account.password_hash, account.email, body.password);
    return { shown: { secret: await webhookSecret(db, ctx.secrets.webhookEncryption, account.id) } };
  });

  registerAction(scope, shared, section, 'rotate-secret', async (_request, v) => {
    await rotateWebhookSecret(db, ctx.secrets.webhookEncryption, accountOf(v).id);
    return { done: 'secret_rotated' };
  });

  registerSmppPassword(scope, shared, section);

  registerAction(scope, shared, section, 'test-event', async (_request, v) => sendTestEvent(shared, v));

  registerAction(scope, shared, section, 'redeliver', async (_request, v, body) => {
    const id = Number(field(body, 'id'));
    if (!Number.isSafeInteger(id) || id < 1) throw refuse(400, 'no_such_event');
    await redeliver(ctx, id, accountOf(v).id);
    ctx.worker.nudge();
    return { done: 'redelivered' };
  });

  registerAction(scope, shared, section, 'redeliver-failed', async (_request, v, body) => {
    const day = localDay(field(body, 'since'));
    if (!day) throw refuse(400, 'date_invalid');
    const account = accountOf(v);
    const failed = await db
      .selectFrom('events')
      .select('id')
      .where('account_id', '=', account.id)
      .where('state', '=', 'failed')
      .where('created_at', '>=', day.start)
      .orderBy('id')
      .execute();
    let count = 0;
    for (const { id } of failed) {
      // One at a time through the same rule as a single redelivery; an event picked up meanwhile is skipped.
      count += await redeliver(ctx, Number(id), account.id).then(
        () => 1,
        (err) => (err?.code === 'redeliver_pending' ? 0 : Promise.reject(err)),
      );
    }
    ctx.worker.nudge();
    return { done: 'redelivered_many', count };
  });

  return section;
}
