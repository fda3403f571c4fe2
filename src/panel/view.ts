import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { asHttpError } from '../features/sms/refusals.js';
import { toCredits } from '../accounts/credits.js';
import { shownEmail } from '../accounts/subaccount-email.js';
import { html, type Html } from './html.js';
import { isWordKey, LANGS, translator, type Lang, type Translate, type WordKey } from './i18n.js';
import { LANG_COOKIE, readCookies, type PanelSession } from './session.js';
import type { PanelAssets } from './assets.js';
import { totalBalance } from '../accounts/index.js';
import { noticeQuery, readNotice, type Notice } from './notice.js';
import { recordAudit } from '../audit/service.js';
import { panelAuditEntry } from './audit.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The panel session of a signed-in request (set by the panel's preHandler). */
    panelSession?: PanelSession;
  }
  interface FastifyContextConfig {
    /** Who may use a panel route: anyone, any signed-in person, account holders, or operators. */
    panel?: 'public' | 'any' | 'account' | 'operator' | 'pending';
    /** A signed-in route's body limit when it needs more than BODY_LIMIT_BYTES (the contact import). */
    panelBodyLimit?: number;
  }
}

/** Everything a page needs to render: words, the signed-in person, the asset URLs. */
export interface View {
  ctx: AppContext;
  t: Translate;
  lang: Lang;
  session?: PanelSession;
  assets: PanelAssets;
  /** The path of the page (for the language switch). */
  path: string;
  query: Record<string, string | undefined>;
}

export function langOf(request: FastifyRequest): Lang {
  const chosen = readCookies(request)[LANG_COOKIE];
  return chosen === 'en' ? 'en' : 'es';
}

export function makeView(ctx: AppContext, assets: PanelAssets, request: FastifyRequest): View {
  const lang = langOf(request);
  return {
    ctx,
    t: translator(lang),
    lang,
    session: request.panelSession,
    assets,
    path: request.url.split('?')[0],
    query: request.query as Record<string, string | undefined>,
  };
}

/** The signed-in account of an account page (the preHandler guarantees it). */
export function accountOf(v: View) {
  if (!v.session?.account) throw new ApiError(403, 'forbidden');
  return v.session.account;
}

export const formatCredits = (v: View, units: number) =>
  new Intl.NumberFormat(v.lang === 'es' ? 'es-MX' : 'en-US', { maximumFractionDigits: 4 }).format(toCredits(units));

export const formatNumber = (v: View, n: number) =>
  new Intl.NumberFormat(v.lang === 'es' ? 'es-MX' : 'en-US').format(n);

/** The hidden CSRF field every state-changing form carries. */
export const csrfField = (v: View) => html`<input type="hidden" name="_csrf" value="${v.session?.csrf ?? ''}" />`;

export interface PageOptions {
  title: WordKey;
  body: Html;
  charts?: boolean;
  notice?: string;
  error?: string;
  /** Shown in the balance slot (operators see every account's balance). */
  balanceUnits?: number;
}

function nav(v: View): Html {
  const s = v.session;
  if (!s) return html``;
  const items: Array<[string, WordKey]> = s.operator
    ? [
        ['/panel/operator', 'operator'],
        ['/panel/operator/carriers', 'carrier_analytics'],
        ['/panel/operator/margins', 'margins'],
        ['/panel/operator/trace', 'message_trace'],
        ['/panel/operator/audit', 'audit_log'],
        ['/panel/account', 'account'],
      ]
    : [
        ['/panel/overview', 'overview'],
        ['/panel/send', 'send'],
        ['/panel/campaigns', 'campaigns'],
        ['/panel/contacts', 'contacts'],
        ['/panel/optouts', 'optouts'],
        ['/panel/replies', 'replies'],
        ['/panel/otp', 'otp'],
        ['/panel/programs', 'programs'],
        ['/panel/integrations', 'integrations'],
        ...(s.account!.parent_id === null ? ([['/panel/subaccounts', 'subaccounts']] as Array<[string, WordKey]>) : []),
        ['/panel/account', 'account'],
      ];
  return html`<nav aria-label="${v.t('nav')}">
    <ul>
      ${items.map(
        ([href, key]) =>
          html`<li>
            <a href="${href}" ${v.path === href || v.path.startsWith(href + '/') ? html` aria-current="page"` : ''}
              >${v.t(key)}</a
            >
          </li>`,
      )}
    </ul>
  </nav>`;
}

export function layout(v: View, o: PageOptions): string {
  const s = v.session;
  const balance = s?.account ? s.account.credits : o.balanceUnits;
  const other = LANGS.filter((l) => l !== v.lang);
  return `<!doctype html>${html`<html lang="${v.lang}">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>${v.t(o.title)} · ${v.t('brand')}</title>
      <link rel="icon" href="data:," />
      <link rel="stylesheet" href="${v.assets.url('panel.css')}" />
      ${
        o.charts
          ? html`<link rel="stylesheet" href="${v.assets.url('uPlot.min.css')}" />
              <script src="${v.assets.url('uPlot.iife.min.js')}" defer></script>`
          : ''
      }
      <script src="${v.assets.url('panel.js')}" defer></script>
    </head>
    <body>
      <a class="skip" href="#main">${v.t('skip')}</a>
      <header class="top">
        <span class="brand">${v.t('brand')}</span>
        ${
          s
            ? html`<span class="who">${shownEmail(s.account?.email ?? s.operator?.email ?? '')}</span>
                <span class="balance"
                  >${s.operator ? v.t('total_balance') : v.t('balance')}:
                  <strong data-testid="balance"
                    >${balance === undefined ? v.t('none') : formatCredits(v, balance)}</strong
                  >
                  ${v.t('credits')}</span
                >`
            : ''
        }
        <span class="lang"
          >${other.map((l) => html`<a href="/panel/lang?to=${l}&amp;back=${encodeURIComponent(v.path)}" lang="${l}" hreflang="${l}">${l === 'es' ? 'Español' : 'English'}</a>`)}</span
        >
        ${s ? html`<form method="post" action="/panel/signout" class="inline">${csrfField(v)}<button type="submit" class="link">${v.t('signout')}</button></form>` : ''}
      </header>
      ${nav(v)}
      <main id="main">
        <h1>${v.t(o.title)}</h1>
        ${o.notice ? html`<p class="notice" role="status">${o.notice}</p>` : ''}
        ${o.error ? html`<p class="error" role="alert">${o.error}</p>` : ''} ${o.body}
      </main>
    </body>
  </html>`}`;
}

/** The message of an error for a person: the panel's words when the code is one, else the service's message. */
export function errorText(v: View, error: ApiError): string {
  const retryAfter = error.headers['Retry-After'];
  const vars = { ...(error.extra as Record<string, string>), ...(retryAfter ? { seconds: retryAfter } : {}) };
  return isWordKey(error.code) ? v.t(error.code, vars) : error.message;
}

/** A page of the panel: its address, who may see it, and how it renders (with an optional result to show). */
export interface Section {
  path: string;
  title: WordKey;
  who: 'account' | 'operator' | 'any';
  charts?: boolean;
  render(v: View, shown?: Record<string, unknown>): Promise<Html>;
}

export type Shared = { ctx: AppContext; assets: () => PanelAssets };

export async function sendPage(
  reply: FastifyReply,
  v: View,
  section: Section,
  o: { status?: number; error?: string; shown?: Record<string, unknown> } = {},
) {
  const body = await section.render(v, o.shown);
  const balanceUnits = v.session?.operator ? await totalBalance(v.ctx.db.kysely) : undefined;
  const left = !o.error && v.session ? readNotice(v.ctx.secrets.panelNotice, v.session, v.query) : undefined;
  const notice = left ? v.t(left.done, { count: left.count ?? '' }) : undefined;
  return reply
    .code(o.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(layout(v, { title: section.title, body, charts: section.charts, notice, error: o.error, balanceUnits }));
}

/**
 * What a form action leads to: a notice after a redirect (POST/redirect/GET), with the page's own query (`id` of the
 * account an operator's page shows), or the page with something revealed.
 */
export type ActionResult = (Notice & { query?: Record<string, string> }) | { shown: Record<string, unknown> };

export function registerSection(scope: FastifyInstance, shared: Shared, section: Section): void {
  scope.get(
    section.path.replace(/^\/panel/, ''),
    { schema: { hide: true }, config: { panel: section.who } },
    async (request, reply) => {
      return sendPage(reply, makeView(shared.ctx, shared.assets(), request), section);
    },
  );
}

/**
 * A state-changing form of a section (CSRF and the person's role are checked
 * by the preHandler before it runs). A refused action (an ApiError) shows the
 * section again with the reason and the error's status.
 */
export function registerAction(
  scope: FastifyInstance,
  shared: Shared,
  section: Section,
  name: string,
  handler: (
    request: FastifyRequest,
    v: View,
    body: Record<string, string | undefined>,
    reply: FastifyReply,
  ) => Promise<ActionResult>,
  /**
   * The audit log's name of the change (`accounts.credits`); an operator's action without one is `operator.<name>`;
   * null when the service the action calls records the entry itself (the operator API's, with the panel as actor).
   */
  auditAction?: string | null,
): void {
  scope.post(
    `${section.path.replace(/^\/panel/, '')}/${name}`,
    { schema: { hide: true }, config: { panel: section.who } },
    async (request, reply) => {
      const v = makeView(shared.ctx, shared.assets(), request);
      const body = (request.body ?? {}) as Record<string, string | undefined>;
      let result: ActionResult;
      try {
        result = await handler(request, v, body, reply);
      } catch (thrown) {
        // A refusal of the send path is shown as the API words it.
        const error = asHttpError(thrown);
        if (!(error instanceof ApiError)) throw thrown;
        // The page comes back with what was typed (never a password or the token), so nothing has to be typed again.
        const typed = Object.fromEntries(
          Object.entries(body).filter(([k, x]) => typeof x === 'string' && !/password|current|confirm|_csrf/.test(k)),
        );
        reply.headers(error.headers);
        return sendPage(reply, { ...v, query: {} }, section, {
          status: error.status,
          error: errorText(v, error),
          shown: { typed },
        });
      }
      const entry =
        section.who === 'operator' && auditAction !== null ? panelAuditEntry(request, name, auditAction) : undefined;
      if (entry) await recordAudit(shared.ctx.db.kysely, entry);
      if ('shown' in result) return sendPage(reply, { ...v, query: {} }, section, { shown: result.shown });
      const own = result.query ? `${new URLSearchParams(result.query).toString()}&` : '';
      const query = noticeQuery(shared.ctx.secrets.panelNotice, request.panelSession!, result);
      return reply.code(303).header('location', `${section.path}?${own}${query}`).send();
    },
  );
}

/** A refusal in the panel's words (the code is the word's key). */
export const refuse = (status: number, key: WordKey, vars: Record<string, string | number> = {}) =>
  new ApiError(status, key, undefined, vars);

/** What the person typed in a refused form (see registerAction), to fill the form again. */
export const typed = (shown: Record<string, unknown> | undefined, name: string): string => {
  const values = (shown?.typed ?? {}) as Record<string, string>;
  return typeof values[name] === 'string' ? values[name] : '';
};

/** A form field as trimmed text ('' when absent). */
export const field = (body: Record<string, unknown>, name: string): string =>
  typeof body[name] === 'string' ? (body[name] as string).trim() : '';

/** A name the service uses (a channel, a job's kind, an alert's type) in the panel's words; as it is when there are none. */
export function wordOr(v: Pick<View, 't'>, prefix: string, name: string): string {
  const key = `${prefix}${name}`;
  return isWordKey(key) ? v.t(key) : name;
}
