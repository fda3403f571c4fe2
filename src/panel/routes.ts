import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext, WithDb } from '../context.js';
import { ApiError } from '../http/errors.js';
import { asHttpError } from '../features/sms/refusals.js';
import { shownEmail } from '../accounts/subaccount-email.js';
import { checkPassword } from './confirm.js';
import { randomToken } from '../lib/ids.js';
import { html } from './html.js';
import { translator } from './i18n.js';
import { assetRoutes, loadAssets, type PanelAssets } from './assets.js';
import {
  checkPanelAddress,
  clearCookie,
  createSession,
  endSession,
  LANG_COOKIE,
  loadSession,
  pruneSessions,
  readCookies,
  sameToken,
  SESSION_COOKIE,
  setCookie,
  SIGNIN_COOKIE,
} from './session.js';
import { finishSignin, reserveSignin } from './throttle.js';
import {
  csrfField,
  errorText,
  field,
  langOf,
  layout,
  makeView,
  registerSection,
  type Section,
  type Shared,
  type View,
} from './view.js';
import { overviewPage } from './pages/overview/view.js';
import { integrationsPage } from './pages/integrations/view.js';
import { accountPage } from './pages/account/view.js';
import { operatorPage } from './pages/operator/view.js';
import { operatorAccountPage } from './pages/operator-account/view.js';
import { carrierAnalyticsPage } from './pages/carrier-analytics/view.js';
import { marginsPage } from './pages/margins/view.js';
import { messageTracePage } from './pages/message-trace/view.js';
import { auditPage } from './pages/audit/view.js';
import { subaccountsPage } from './pages/subaccounts/view.js';
import { campaignsPage } from './pages/campaigns/view.js';
import { contactsPage } from './pages/contacts/view.js';
import { optoutsPage } from './pages/optouts/view.js';
import { repliesPage } from './pages/replies/view.js';
import { sendPage } from './pages/send/view.js';
import { otpPage } from './pages/otp/view.js';
import { programsPage } from './pages/programs/view.js';
import type { PrincipalKind } from './tables.js';
import { totpEnabled, useTotpCode } from './totp.js';
import { SIGNIN_CANDIDATES, signinCandidates } from './signin-candidates.js';
import { passwordResetRoutes } from './password-reset.js';
import { acceptingAs, BY_PANEL } from '../messaging/accepted-by.js';

/**
 * Strict Content-Security-Policy: scripts and styles only from this origin's
 * files (no inline code, no CDN), no framing, forms post only here.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** A hash nobody has: the unused candidate slots are checked against it, so every attempt costs the same. */
const NO_SUCH_PERSON = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

/** Five minutes to type the authenticator's code. */
const TOTP_STEP_HOURS = 5 / 60;

const HOME: Record<PrincipalKind, string> = { account: '/panel/overview', operator: '/panel/operator' };

/**
 * Every page of the panel, in the order their routes are registered: a page is a function `(scope, shared) => Section`
 * (its view.ts), which registers its own actions (docs/contributors/panel.md).
 */
const SECTIONS: Array<(scope: FastifyInstance, shared: Shared) => Section> = [
  overviewPage,
  integrationsPage,
  campaignsPage,
  sendPage,
  contactsPage,
  optoutsPage,
  repliesPage,
  otpPage,
  programsPage,
  accountPage,
  operatorPage,
  operatorAccountPage,
  carrierAnalyticsPage,
  marginsPage,
  messageTracePage,
  auditPage,
  subaccountsPage,
];

export async function panelRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  let loaded: ReturnType<typeof loadAssets> | undefined;
  const built = () => (loaded ??= loadAssets());
  const shared: Shared = { ctx, assets: () => built().assets };

  await app.register(
    async (scope) => {
      scope.addHook('onRequest', async (_request, reply) => {
        reply.header('content-security-policy', CSP);
        reply.header('x-frame-options', 'DENY');
        reply.header('x-content-type-options', 'nosniff');
        reply.header('referrer-policy', 'same-origin');
        reply.header('cache-control', 'no-store');
      });
      // The service caps public routes' bodies at PUBLIC_BODY_LIMIT_BYTES; that stays for sign-in (anyone may post it). A
      // signed-in route takes what the API takes, and its body is read only once a live session is known (earlyGuard).
      scope.addHook('onRoute', (route) => {
        const who = route.config?.panel;
        if (who !== undefined && who !== 'public')
          route.bodyLimit = route.config?.panelBodyLimit ?? ctx.config.BODY_LIMIT_BYTES;
        // What a panel page sends is recorded as accepted by the panel (the message trace).
        const handler = route.handler;
        route.handler = function (request, reply) {
          return acceptingAs(BY_PANEL, () => handler.call(this, request, reply));
        };
      });
      scope.addHook('onRequest', (request) => earlyGuard(ctx, request));
      scope.addHook('preHandler', (request, reply) => guard(ctx, request, reply));
      scope.setErrorHandler((error, request, reply) => errorPage(ctx, shared, request, reply, error as Error));
      scope.setNotFoundHandler((request, reply) =>
        errorPage(ctx, shared, request, reply, new ApiError(404, 'not_found')),
      );

      assetRoutes(scope, () => built().files);

      scope.get('/', { schema: { hide: true }, config: { panel: 'public' } }, async (request, reply) => {
        const session = await loadSession(ctx.db.kysely, readCookies(request)[SESSION_COOKIE]);
        if (session) return reply.redirect(HOME[session.kind], 303);
        return signinForm(ctx, shared.assets(), request, reply);
      });
      scope.post('/signin', { schema: { hide: true }, config: { panel: 'public' } }, (request, reply) =>
        signin(ctx, shared.assets(), request, reply),
      );
      scope.post('/signout', { schema: { hide: true }, config: { panel: 'any' } }, async (request, reply) => {
        await endSession(ctx.db.kysely, request.panelSession!.id);
        clearCookie(request, reply, SESSION_COOKIE);
        return reply.redirect('/panel/', 303);
      });
      scope.get('/lang', { schema: { hide: true }, config: { panel: 'public' } }, async (request, reply) => {
        const { to, back } = request.query as { to?: string; back?: string };
        // A display preference, not account state: a plain link, so it works before sign-in too.
        setCookie(request, reply, LANG_COOKIE, to === 'en' ? 'en' : 'es', 365 * 86_400, false);
        const target = typeof back === 'string' && /^\/panel(\/[\w/-]*)?$/.test(back) ? back : '/panel/';
        return reply.redirect(target, 303);
      });

      passwordResetRoutes(scope, shared);

      scope.get('/totp', { schema: { hide: true }, config: { panel: 'pending' } }, async (request, reply) =>
        totpForm(ctx, shared.assets(), request, reply),
      );
      scope.post('/totp', { schema: { hide: true }, config: { panel: 'pending' } }, (request, reply) =>
        totpStep(ctx, shared.assets(), request, reply),
      );

      for (const add of SECTIONS) registerSection(scope, shared, add(scope, shared));
    },
    { prefix: '/panel' },
  );
}

/** The second step of sign-in: the authenticator's code, throttled as the password is, ends the pending session. */
async function totpStep(ctx: AppContext, assets: PanelAssets, request: FastifyRequest, reply: FastifyReply) {
  const s = request.panelSession!;
  // Throttled by the plain email, as at sign-in.
  const email = shownEmail(s.account?.email ?? s.operator!.email);
  const principalId = s.account?.id ?? s.operator!.id;
  const t = translator(langOf(request));
  const attempt = await reserveSignin(ctx.db.kysely, ctx.config, email, request.ip);
  if ('waitMinutes' in attempt) {
    const error = t('signin_throttled', { minutes: attempt.waitMinutes });
    return totpForm(ctx, assets, request, reply, 429, error);
  }
  const code = field((request.body ?? {}) as Record<string, unknown>, 'code').replace(/\s/g, '');
  if (!(await useTotpCode(ctx.db.kysely, ctx.secrets.panelTotpEncryption, s.kind, principalId, code))) {
    await finishSignin(ctx.db.kysely, attempt, 'failed');
    return totpForm(ctx, assets, request, reply, 401, t('totp_wrong'));
  }
  await finishSignin(ctx.db.kysely, attempt, 'signed-in');
  await endSession(ctx.db.kysely, s.id);
  const token = await createSession(ctx.db.kysely, s.kind, principalId, ctx.config.PANEL_SESSION_HOURS);
  setCookie(request, reply, SESSION_COOKIE, token, ctx.config.PANEL_SESSION_HOURS * 3600);
  return reply.redirect(HOME[s.kind], 303);
}

/**
 * Before the body is read: a state-changing request to a signed-in route
 * without a live session is refused, so nobody without one makes the
 * server read a large body. `guard` decides the rest once the body is read.
 */
async function earlyGuard(ctx: WithDb, request: FastifyRequest): Promise<void> {
  const who = request.routeOptions.config.panel;
  if (who === undefined || who === 'public' || request.method === 'GET' || request.method === 'HEAD') return;
  const session = await loadSession(ctx.db.kysely, readCookies(request)[SESSION_COOKIE]);
  if (!session) throw new ApiError(403, 'csrf_refused');
  checkPanelAddress(session, request.ip);
  request.panelSession = session;
}

/**
 * Every panel request: public routes pass; others need a live session of the
 * right kind (a page redirects to sign-in, anything else is refused), and
 * every state-changing request must come from this origin with the session's
 * CSRF token.
 */
async function guard(ctx: WithDb, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const who = request.routeOptions.config.panel;
  if (request.method !== 'GET' && request.method !== 'HEAD' && !sameOrigin(request))
    throw new ApiError(403, 'csrf_refused');
  if (who === undefined || who === 'public') return;
  const session = request.panelSession ?? (await loadSession(ctx.db.kysely, readCookies(request)[SESSION_COOKIE]));
  if (!session) {
    if (request.method === 'GET') return void reply.redirect('/panel/', 303);
    throw new ApiError(403, 'csrf_refused');
  }
  checkPanelAddress(session, request.ip);
  request.panelSession = session;
  // Between the password and the authenticator code only the code page is open, and the code page only then.
  if (session.pendingTotp !== (who === 'pending')) {
    if (request.method === 'GET')
      return void reply.redirect(session.pendingTotp ? '/panel/totp' : HOME[session.kind], 303);
    throw new ApiError(403, 'forbidden');
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const token = body._csrf ?? request.headers['x-csrf-token'];
    if (!sameToken(token, session.csrf)) throw new ApiError(403, 'csrf_refused');
  }
  if ((who === 'account' && !session.account) || (who === 'operator' && !session.operator))
    throw new ApiError(403, 'forbidden');
}

/** The Origin (or, without it, the Referer) of a state-changing request must be this service. */
function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin ?? request.headers.referer;
  if (typeof origin !== 'string') return true; // Not a browser's cross-site form: the CSRF token still decides.
  try {
    return new URL(origin).host === request.host;
  } catch {
    return false;
  }
}

async function signinForm(
  ctx: AppContext,
  assets: PanelAssets,
  request: FastifyRequest,
  reply: FastifyReply,
  o: { status?: number; error?: string; email?: string } = {},
) {
  const token = randomToken(24);
  setCookie(request, reply, SIGNIN_COOKIE, token, 3600);
  const v = makeView(ctx, assets, request);
  const body = html`<form method="post" action="/panel/signin" class="card narrow">
    <input type="hidden" name="_csrf" value="${token}" />
    <label for="email">${v.t('email')}</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${o.email ?? ''}" />
    <label for="password">${v.t('password')}</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required />
    <button type="submit">${v.t('signin')}</button>
    <p><a href="/panel/forgot">${v.t('forgot_link')}</a></p>
  </form>`;
  return reply
    .code(o.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(layout(v, { title: 'signin_title', body, error: o.error }));
}

async function totpForm(
  ctx: AppContext,
  assets: PanelAssets,
  request: FastifyRequest,
  reply: FastifyReply,
  status = 200,
  error?: string,
) {
  const v = makeView(ctx, assets, request);
  const body = html`<form method="post" action="/panel/totp" class="card narrow">
    ${csrfField(v)}
    <label for="code">${v.t('totp_code')}</label>
    <input
      id="code"
      name="code"
      inputmode="numeric"
      autocomplete="one-time-code"
      pattern="[0-9 ]{6,7}"
      required
      aria-describedby="code-help"
    />
    <p id="code-help" class="help">${v.t('totp_code_help')}</p>
    <button type="submit">${v.t('signin')}</button>
  </form>`;
  // The layout's header (balance, sections) waits for the second step.
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(layout({ ...v, session: undefined }, { title: 'totp_title', body, error }));
}

async function signin(ctx: AppContext, assets: PanelAssets, request: FastifyRequest, reply: FastifyReply) {
  const t = translator(langOf(request));
  const body = (request.body ?? {}) as Record<string, unknown>;
  const email = field(body, 'email').toLowerCase().slice(0, 320);
  const password = typeof body.password === 'string' ? body.password : '';
  if (!sameToken(body._csrf, readCookies(request)[SIGNIN_COOKIE] ?? '')) {
    return signinForm(ctx, assets, request, reply, { status: 403, error: t('signin_expired'), email });
  }
  const db = ctx.db.kysely;
  // Reserved before any hashing: parallel guesses cannot all pass a count none of them has added to yet.
  const attempt = await reserveSignin(db, ctx.config, email, request.ip);
  if ('waitMinutes' in attempt) {
    const error = t('signin_throttled', { minutes: attempt.waitMinutes });
    return signinForm(ctx, assets, request, reply, { status: 429, error, email });
  }

  // The password is tried against every person the email may name (signin-candidates.ts), always the same number of times.
  const candidates = await signinCandidates(db, email, request.ip);
  const usable = password.length > 0 && password.length <= 1024;
  const checks = Array.from({ length: SIGNIN_CANDIDATES }, (_, i) =>
    usable ? checkPassword(password, candidates[i]?.hash ?? NO_SUCH_PERSON, request.ip) : false,
  );
  const matches = await Promise.all(checks);
  if (matches.includes('busy')) {
    // This address already has its share of the hashing queue: refused unchecked, and counted as a guess.
    await finishSignin(db, attempt, 'failed');
    return signinForm(ctx, assets, request, reply, {
      status: 429,
      error: t('signin_throttled', { minutes: 1 }),
      email,
    });
  }
  const who = candidates.find((_, i) => matches[i] === true);
  if (!who) {
    await finishSignin(db, attempt, 'failed');
    return signinForm(ctx, assets, request, reply, { status: 401, error: t('signin_wrong'), email });
  }
  await pruneSessions(db);
  const { kind, id: principalId } = who;
  clearCookie(request, reply, SIGNIN_COOKIE);
  if (await totpEnabled(db, kind, principalId)) {
    // Two-step sign-in: a short session that opens only the code page; failures keep counting until the code is right.
    await finishSignin(db, attempt, 'passed');
    const pending = await createSession(db, kind, principalId, TOTP_STEP_HOURS, true);
    setCookie(request, reply, SESSION_COOKIE, pending, TOTP_STEP_HOURS * 3600);
    return reply.redirect('/panel/totp', 303);
  }
  await finishSignin(db, attempt, 'signed-in');
  const token = await createSession(db, kind, principalId, ctx.config.PANEL_SESSION_HOURS);
  setCookie(request, reply, SESSION_COOKIE, token, ctx.config.PANEL_SESSION_HOURS * 3600);
  return reply.redirect(HOME[kind], 303);
}

async function errorPage(
  ctx: AppContext,
  shared: Shared,
  request: FastifyRequest,
  reply: FastifyReply,
  thrown: Error & { statusCode?: number },
) {
  const error = asHttpError(thrown);
  let status = error instanceof ApiError ? error.status : (error.statusCode ?? 500);
  if (status < 400) status = 500;
  if (status >= 500) request.log.error({ err: error, reqId: request.id }, 'panel error');
  let v: View;
  try {
    v = makeView(ctx, shared.assets(), request);
  } catch (assetsMissing) {
    request.log.error({ err: assetsMissing }, 'panel assets missing');
    return reply.code(503).type('text/plain; charset=utf-8').send('The panel is not built: run npm run build');
  }
  const message =
    error instanceof ApiError ? errorText(v, error) : status >= 500 ? `${v.t('error')} (${request.id})` : error.message;
  // The panel's script (the contact import) asks for JSON: the common envelope, in the person's language.
  if (String(request.headers.accept ?? '').startsWith('application/json')) {
    return reply
      .code(status)
      .send({ success: false, status, code: error instanceof ApiError ? error.code : 'invalid_request', message });
  }
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(layout(v, { title: 'error', body: html``, error: message }));
}
