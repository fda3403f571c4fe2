import type { FastifyInstance } from 'fastify';
import { accountsMatching, type AccountRow } from '../../../accounts/index.js';
import { shownEmail } from '../../../accounts/subaccount-email.js';
import { html } from '../../html.js';
import { carrierStatus } from '../../../carriers/status.js';
import type { PublicRoute } from '../../../carriers/index.js';
import { failingWebhooks, type FailingEndpoint } from '../../../webhooks/service.js';
import { alertEpisodes, jobQueue, publicRoutes } from '../../deployment.js';
import { ALERTS_SHOWN, alertsCard } from './alerts.js';
import { allBinds } from '../../../features/smpp-users/service.js';
import { smppBindsCard } from './smpp.js';
import { registerOperatorActions } from './actions.js';
import { carrierForm, carrierSettings, registerCarrierActions, routeForm } from './carriers-edit.js';
import { pricesTable, priceForm, registerPriceActions, withAccounts, type ListedPrice } from './prices.js';
import { accountEmails, prefixPrices } from '../../operator-data.js';
import { shownTime } from '../../time.js';
import { csrfField, formatCredits, formatNumber, wordOr, type Section, type Shared, type View } from '../../view.js';

type CarrierRow = Awaited<ReturnType<typeof carrierStatus>>[number];
type QueueRow = Awaited<ReturnType<typeof jobQueue>>[number];

/** The operator view: open and recent alerts, accounts (search, create, add credits, archive), the carriers (live state) and routes, customers' SMPP binds, the job queue, failing webhook endpoints. */
export function operatorPage(scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  const section: Section = {
    path: '/panel/operator',
    title: 'operator',
    who: 'operator',
    async render(v, shown) {
      const search = (v.query.q ?? '').trim().slice(0, 100);
      const now = Date.now();
      // Carriers and routes from the same functions as `mensajero carriers status` and `routes list`.
      const [accounts, queue, failing, carriers, routes, episodes, binds, editable, prices] = await Promise.all([
        accountsMatching(ctx, search),
        jobQueue(ctx),
        failingWebhooks(ctx, now),
        carrierStatus(ctx),
        publicRoutes(ctx),
        alertEpisodes(ctx, ALERTS_SHOWN),
        allBinds(ctx),
        carrierSettings(ctx),
        prefixPrices(ctx),
      ]);
      const emails = await accountEmails(ctx, [...new Set(prices.map((p) => p.accountId))]);
      const waiting = queue.filter((q) => q.state === 'pending');
      return html`${alertsCard(v, episodes)} ${accountsCard(v, search, accounts)}
      ${carriersCard(v, carriers, routes, editable)} ${pricesCard(v, withAccounts(prices, emails), shown)}
      ${smppBindsCard(v, binds)} ${queueCard(v, waiting, now)} ${failingCard(v, failing)}`;
    },
  };
  registerOperatorActions(scope, shared, section);
  registerCarrierActions(scope, shared, section);
  registerPriceActions(scope, shared, section, () => undefined);
  return section;
}

/** Accounts: the search, each with add-credits and archive forms, and the form that creates one. */
function accountsCard(v: View, search: string, accounts: AccountRow[]) {
  return html`<section class="card" aria-labelledby="acc-title">
    <h2 id="acc-title">${v.t('accounts')}</h2>
    <form method="get" action="/panel/operator" class="row" role="search">
      <label for="q">${v.t('search_email')}</label>
      <input id="q" name="q" type="search" value="${search}" />
      <button type="submit">${v.t('search')}</button>
    </form>
    <div class="scroll">
      <table class="stack" data-testid="accounts">
        <thead>
          <tr>
            <th scope="col">${v.t('email')}</th>
            <th scope="col">${v.t('balance')}</th>
            <th scope="col">${v.t('status')}</th>
            <th scope="col">${v.t('parent')}</th>
            <th scope="col">${v.t('actions')}</th>
          </tr>
        </thead>
        <tbody>
          ${accounts.map(
            (a) =>
              html`<tr data-account="${a.email}">
                <td>
                  <a href="/panel/operator/account?id=${a.id}">${shownEmail(a.email)}</a>
                </td>
                <td>${formatCredits(v, a.credits)}</td>
                <td>${a.status === 'active' ? v.t('active') : v.t('archived')}</td>
                <td>${a.parent_email ?? ''}</td>
                <td>
                  ${
                    a.status === 'active'
                      ? html`<form method="post" action="/panel/operator/credits" class="row">
                            ${csrfField(v)}<input type="hidden" name="email" value="${a.email}" />
                            <label class="sr" for="add-${a.id}">${v.t('add_credits')} (${shownEmail(a.email)})</label
                            ><input id="add-${a.id}" name="credits" inputmode="decimal" size="6" required />
                            <label class="sr" for="reason-${a.id}"
                              >${v.t('credits_reason')} (${shownEmail(a.email)})</label
                            ><input
                              id="reason-${a.id}"
                              name="reason"
                              maxlength="500"
                              size="14"
                              placeholder="${v.t('credits_reason')}"
                            />
                            <button type="submit" class="small">${v.t('add_credits')}</button>
                          </form>
                          <form method="post" action="/panel/operator/archive">
                            ${csrfField(v)}<input type="hidden" name="email" value="${a.email}" /><button
                              type="submit"
                              class="small danger"
                            >
                              ${v.t('archive')}
                            </button>
                          </form>`
                      : ''
                  }
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <h3>${v.t('create_account')}</h3>
    <form method="post" action="/panel/operator/create" class="grid">
      ${csrfField(v)} <label for="new-email">${v.t('email')}</label
      ><input id="new-email" name="email" type="email" required /> <label for="new-password">${v.t('password')}</label
      ><input id="new-password" name="password" type="password" autocomplete="new-password" minlength="8" required />
      <label for="new-credits">${v.t('credits')}</label
      ><input id="new-credits" name="credits" inputmode="decimal" value="0" />
      <button type="submit">${v.t('create_account')}</button>
    </form>
  </section>`;
}

/** The carriers (live state and counters) and the routes. */
function carriersCard(
  v: View,
  carriers: CarrierRow[],
  routes: PublicRoute[],
  editable: Map<string, Record<string, string>>,
) {
  return html`<section class="card" aria-labelledby="carriers-title">
    <h2 id="carriers-title">${v.t('carriers')}</h2>
    <div class="scroll">
      <table class="stack" data-testid="carriers">
        <thead>
          <tr>
            <th scope="col">${v.t('carrier')}</th>
            <th scope="col">${v.t('carrier_state')}</th>
            <th scope="col">${v.t('window_in_use')}</th>
            <th scope="col">${v.t('carrier_counters')}</th>
            <th scope="col">${v.t('last_error')}</th>
          </tr>
        </thead>
        <tbody>
          ${carriers.map(
            (c) =>
              html`<tr data-carrier="${c.name}">
                <td>
                  ${c.name} (${wordOr(v, 'carrier_type_', c.type)}) ${carrierForm(v, c.name, editable.get(c.name))}
                </td>
                <td data-state="${c.state}">${v.t(`carrier_${c.state}`)}</td>
                <td>${formatNumber(v, c.window_in_use)}</td>
                <td>
                  ${v.t('carrier_counts', { submitted: c.submitted, refused: c.refused, throttled: c.throttled, errors: c.errors, receipts: c.receipts, replies: c.replies, binds: c.binds, processes: c.processes })}
                </td>
                <td>
                  ${c.last_error ? html`${c.last_error_at ? shownTime(v, c.last_error_at) : ''} ${c.last_error}` : v.t('none')}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <h3>${v.t('routes')}</h3>
    ${
      routes.length === 0
        ? html`<p>${v.t('routes_none')}</p>`
        : html`<div class="scroll">
            <table class="stack" data-testid="routes">
              <thead>
                <tr>
                  <th scope="col">${v.t('channel')}</th>
                  <th scope="col">${v.t('prefix')}</th>
                  <th scope="col">${v.t('carriers')}</th>
                  <th scope="col">${v.t('route_account')}</th>
                  <th scope="col">${v.t('route_strategy')}</th>
                  <th scope="col">${v.t('actions')}</th>
                </tr>
              </thead>
              <tbody>
                ${routes.map(
                  (r) =>
                    html`<tr data-route="${r.id}">
                      <td>${wordOr(v, 'channel_', r.channel)}</td>
                      <td>${r.prefix === '' ? v.t('route_any_number') : `+${r.prefix}`}</td>
                      <td>${r.carriers.join(' → ')}</td>
                      <td>${r.account ?? v.t('route_every_account')}</td>
                      <td>${wordOr(v, 'strategy_', r.strategy)}</td>
                      <td>
                        <form method="post" action="/panel/operator/remove-route">
                          ${csrfField(v)}<input type="hidden" name="id" value="${r.id}" /><button
                            type="submit"
                            class="small danger"
                            aria-label="${v.t('remove_of', { what: `${r.channel} ${r.prefix === '' ? v.t('route_any_number') : `+${r.prefix}`}` })}"
                          >
                            ${v.t('remove')}
                          </button>
                        </form>
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    <p class="help">${v.t('routes_help')}</p>
    <h3>${v.t('route_add')}</h3>
    ${routeForm(v)}
  </section>`;
}

/** Every prefix price, the deployment's and each account's, with the form that sets one. */
function pricesCard(v: View, prices: ListedPrice[], shown?: Record<string, unknown>) {
  return html`<section class="card" aria-labelledby="prices-title">
    <h2 id="prices-title">${v.t('prices')}</h2>
    <p class="help">${v.t('prices_help')}</p>
    ${pricesTable(v, prices, '/panel/operator')} ${priceForm(v, '/panel/operator/price', shown)}
  </section>`;
}

/** The job queue: what waits, per kind, and for how long. */
function queueCard(v: View, waiting: QueueRow[], now: number) {
  return html`<section class="card" aria-labelledby="queue-title">
    <h2 id="queue-title">${v.t('queue')}</h2>
    ${
      waiting.length === 0
        ? html`<p>${v.t('queue_empty')}</p>`
        : html`<div class="scroll">
            <table class="stack" data-testid="queue">
              <thead>
                <tr>
                  <th scope="col">${v.t('job_kind')}</th>
                  <th scope="col">${v.t('waiting')}</th>
                  <th scope="col">${v.t('oldest_waiting')}</th>
                </tr>
              </thead>
              <tbody>
                ${waiting.map(
                  (q) =>
                    html`<tr>
                      <td>${wordOr(v, 'job_', q.kind)}</td>
                      <td>${formatNumber(v, q.count)}</td>
                      <td>
                        ${q.oldest_run_at !== null && q.oldest_run_at < now ? v.t('seconds', { n: Math.round((now - q.oldest_run_at) / 1000) }) : v.t('none')}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}

/** Webhook endpoints failing now. */
function failingCard(v: View, failing: FailingEndpoint[]) {
  return html`<section class="card" aria-labelledby="fail-title">
    <h2 id="fail-title">${v.t('failing_webhooks')}</h2>
    ${
      failing.length === 0
        ? html`<p>${v.t('failing_none')}</p>`
        : html`<div class="scroll">
            <table class="stack" data-testid="failing-webhooks">
              <thead>
                <tr>
                  <th scope="col">${v.t('email')}</th>
                  <th scope="col">${v.t('webhook_url')}</th>
                  <th scope="col">${v.t('last_error')}</th>
                  <th scope="col">${v.t('failures_hour')}</th>
                  <th scope="col">${v.t('pending')}</th>
                </tr>
              </thead>
              <tbody>
                ${failing.map(
                  (f) =>
                    html`<tr>
                      <td>${shownEmail(f.email)}</td>
                      <td>${f.url}</td>
                      <td>${shownTime(v, f.lastAt)} ${f.lastError}</td>
                      <td>${f.failuresLastHour}</td>
                      <td>${f.pending}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}
