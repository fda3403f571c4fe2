import type { FastifyInstance } from 'fastify';
import { toCredits, toUnits } from '../../../accounts/credits.js';
import { shownEmail } from '../../../accounts/subaccount-email.js';
import { adjustCredits, archiveAccount, findAccountByEmail, searchAccounts } from '../../../accounts/index.js';
import { isAccountEmail } from '../../../text/email.js';
import { AccountCreateError, createAccount } from '../../../accounts/create.js';
import { queueStats } from '../../../jobs/queue.js';
import { formatLocal } from '../../../lib/time.js';
import { html } from '../../html.js';
import { carrierStatus } from '../../../carriers/status.js';
import { listPublicRoutes } from '../../../carriers/index.js';
import { failingEndpoints } from '../../../webhooks/service.js';
import { listEpisodes } from '../../../alerts/index.js';
import { ALERTS_SHOWN, alertsCard } from './alerts.js';
import { bindRows } from '../../../features/smpp-users/service.js';
import { registerCloseBind, smppBindsCard } from './smpp.js';
import {
  csrfField,
  field,
  formatCredits,
  formatNumber,
  refuse,
  registerAction,
  type Section,
  type Shared,
} from '../../view.js';

/** Positive credits with at most 4 decimals (one unit), as the CLI accepts them. */
function creditsField(text: string, allowZero: boolean): number {
  const n = Number(text === '' && allowZero ? '0' : text);
  if (!Number.isFinite(n) || n < 0 || (!allowZero && n === 0) || n > 100_000_000 || toCredits(toUnits(n)) !== n)
    throw refuse(400, 'credits_invalid');
  return n;
}

/** The operator view: open and recent alerts, accounts (search, create, add credits, archive), the carriers (live state) and routes, customers' SMPP binds, the job queue, failing webhook endpoints. */
export function operatorPage(scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  const db = ctx.db.kysely;
  const section: Section = {
    path: '/panel/operator',
    title: 'operator',
    who: 'operator',
    async render(v) {
      const search = (v.query.q ?? '').trim().slice(0, 100);
      const now = Date.now();
      // Carriers and routes from the same functions as `mensajero carriers status` and `routes list`.
      const [accounts, queue, failing, carriers, routes, episodes, binds] = await Promise.all([
        searchAccounts(db, search),
        queueStats(ctx.db),
        failingEndpoints(db, now),
        carrierStatus(ctx),
        listPublicRoutes(db),
        listEpisodes(db, ALERTS_SHOWN),
        bindRows(ctx.db),
      ]);
      const waiting = queue.filter((q) => q.state === 'pending');
      return html`${alertsCard(v, episodes)}
        <section class="card" aria-labelledby="acc-title">
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
                      <td>${shownEmail(a.email)}</td>
                      <td>${formatCredits(v, a.credits)}</td>
                      <td>${a.status === 'active' ? v.t('active') : v.t('archived')}</td>
                      <td>${a.parent_email ?? ''}</td>
                      <td>
                        ${
                          a.status === 'active'
                            ? html`<form method="post" action="/panel/operator/credits" class="row">
                                  ${csrfField(v)}<input type="hidden" name="email" value="${a.email}" />
                                  <label class="sr" for="add-${a.id}"
                                    >${v.t('add_credits')} (${shownEmail(a.email)})</label
                                  ><input id="add-${a.id}" name="credits" inputmode="decimal" size="6" required />
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
            ><input id="new-email" name="email" type="email" required />
            <label for="new-password">${v.t('password')}</label
            ><input
              id="new-password"
              name="password"
              type="password"
              autocomplete="new-password"
              minlength="8"
              required
            />
            <label for="new-credits">${v.t('credits')}</label
            ><input id="new-credits" name="credits" inputmode="decimal" value="0" />
            <button type="submit">${v.t('create_account')}</button>
          </form>
        </section>

        <section class="card" aria-labelledby="carriers-title">
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
                      <td>${c.name} (${c.type})</td>
                      <td data-state="${c.state}">${v.t(`carrier_${c.state}`)}</td>
                      <td>${formatNumber(v, c.window_in_use)}</td>
                      <td>
                        ${v.t('carrier_counts', { submitted: c.submitted, refused: c.refused, throttled: c.throttled, errors: c.errors, receipts: c.receipts, replies: c.replies, binds: c.binds, processes: c.processes })}
                      </td>
                      <td>
                        ${c.last_error ? html`${c.last_error_at ? formatLocal(c.last_error_at) : ''} ${c.last_error}` : v.t('none')}
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
                      </tr>
                    </thead>
                    <tbody>
                      ${routes.map(
                        (r) =>
                          html`<tr>
                            <td>${r.channel}</td>
                            <td>${r.prefix === '' ? v.t('route_any_number') : `+${r.prefix}`}</td>
                            <td>${r.carriers.join(' → ')}</td>
                            <td>${r.account ?? v.t('route_every_account')}</td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>
                </div>`
          }
          <p class="help">${v.t('routes_help')}</p>
        </section>

        ${smppBindsCard(v, binds)}

        <section class="card" aria-labelledby="queue-title">
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
                            <td>${q.kind}</td>
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
        </section>

        <section class="card" aria-labelledby="fail-title">
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
                            <td>${formatLocal(f.lastAt)} ${f.lastError}</td>
                            <td>${f.failuresLastHour}</td>
                            <td>${f.pending}</td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>
                </div>`
          }
        </section>`;
    },
  };

  registerAction(
    scope,
    shared,
    section,
    'create',
    async (_request, _v, body) => {
      const email = field(body, 'email').toLowerCase();
      const password = typeof body.password === 'string' ? body.password : '';
      if (!isAccountEmail(email)) throw refuse(400, 'email_invalid');
      if (password.length < 8 || password.length > 128) throw refuse(400, 'password_rules');
      const credits = creditsField(field(body, 'credits'), true);
      await createAccount(ctx.db, ctx.secrets.keyEncryption, { email, password, credits }).catch((err) => {
        throw err instanceof AccountCreateError ? refuse(400, err.code) : err;
      });
      return { done: 'account_created' };
    },
    'accounts.create',
  );

  registerAction(
    scope,
    shared,
    section,
    'credits',
    async (_request, _v, body) => {
      const account = await findAccountByEmail(db, field(body, 'email'));
      if (!account || account.status !== 'active') throw refuse(400, 'email_invalid');
      if (!(await adjustCredits(db, account.id, toUnits(creditsField(field(body, 'credits'), false)))))
        throw refuse(400, 'credits_below_zero');
      return { done: 'credits_added' };
    },
    'accounts.credits',
  );

  registerAction(
    scope,
    shared,
    section,
    'archive',
    async (_request, _v, body) => {
      const account = await findAccountByEmail(db, field(body, 'email'));
      if (!account) throw refuse(400, 'email_invalid');
      await db.transaction().execute((trx) => archiveAccount(trx, account.id));
      return { done: 'account_archived' };
    },
    'accounts.archive',
  );

  registerCloseBind(scope, shared, section);

  return section;
}
