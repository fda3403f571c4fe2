import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import {
  findAccountByEmail,
  issuePasswordReset,
  meetsPasswordRules,
  redeemPasswordReset,
  RESET_PATH,
  resetTokenAccount,
} from '../accounts/index.js';
import { recordAudit } from '../audit/service.js';
import { ApiError } from '../http/errors.js';
import { randomToken } from '../lib/ids.js';
import { html, type Html } from './html.js';
import { readCookies, sameToken, setCookie, SIGNIN_COOKIE } from './session.js';
import { field, langOf, layout, makeView, type Shared, type View } from './view.js';
import { translator, type Lang, type WordKey } from './i18n.js';

const PUBLIC = { schema: { hide: true }, config: { panel: 'public' as const } };

/** The one-time token the public forms carry (as at sign-in): in a cookie and in the form, the same. */
function formToken(request: FastifyRequest, reply: FastifyReply): string {
  const token = randomToken(24);
  setCookie(request, reply, SIGNIN_COOKIE, token, 3600);
  return token;
}

const sameForm = (request: FastifyRequest, body: Record<string, unknown>) =>
  sameToken(body._csrf, readCookies(request)[SIGNIN_COOKIE] ?? '');

function page(reply: FastifyReply, v: View, title: WordKey, body: Html, o: { status?: number; error?: string } = {}) {
  return reply
    .code(o.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(layout({ ...v, session: undefined }, { title, body, error: o.error }));
}

const signinLink = (v: View) => html`<p><a href="/panel/">${v.t('back_to_signin')}</a></p>`;

/**
 * "Forgot your password?": with SMTP_URL set, the link goes to the account's email. The answer is the same whether
 * or not the email names an account, and the email is sent after the answer, so its time tells nothing either.
 * Each request counts on PASSWORD_ENDPOINTS_PER_MINUTE per address and per email (the rate limiter of the service).
 */
function forgotRoutes(scope: FastifyInstance, shared: Shared): void {
  const { ctx } = shared;
  const form = (request: FastifyRequest, reply: FastifyReply, o: { status?: number; error?: string } = {}) => {
    const v = makeView(ctx, shared.assets(), request);
    if (!ctx.config.SMTP_URL)
      return page(
        reply,
        v,
        'forgot_title',
        html`<p>${v.t('forgot_no_mail')}</p>
          ${signinLink(v)}`,
      );
    const body = html`<form method="post" action="/panel/forgot" class="card narrow">
      <input type="hidden" name="_csrf" value="${formToken(request, reply)}" />
      <p>${v.t('forgot_help')}</p>
      <label for="email">${v.t('email')}</label>
      <input id="email" name="email" type="email" autocomplete="username" maxlength="320" required />
      <button type="submit">${v.t('forgot_submit')}</button>
    </form>`;
    return page(reply, v, 'forgot_title', body, o);
  };
  scope.get('/forgot', PUBLIC, (request, reply) => form(request, reply));
  scope.post('/forgot', PUBLIC, async (request, reply) => {
    const v = makeView(ctx, shared.assets(), request);
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (!ctx.config.SMTP_URL) return form(request, reply);
    if (!sameForm(request, body)) return form(request, reply, { status: 403, error: v.t('signin_expired') });
    const email = field(body, 'email').toLowerCase().slice(0, 320);
    const limit = passwordResetLimit(ctx);
    try {
      await limit.consume(`address:${request.ip}`);
      await limit.consume(`email:${email}`);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      reply.headers(err.headers);
      return form(request, reply, { status: 429, error: v.t('signin_throttled', { minutes: 1 }) });
    }
    void mailResetLink(ctx, email, langOf(request)).catch((err: Error & { code?: string }) =>
      // Neither the link nor the SMTP URL: the error's code only.
      request.log.warn({ code: err.code ?? err.name }, 'password reset email not sent'),
    );
    return page(
      reply,
      v,
      'forgot_title',
      html`<p class="notice" role="status">${v.t('forgot_sent')}</p>
        ${signinLink(v)}`,
    );
  });
}

const passwordResetLimit = (ctx: Pick<AppContext, 'rateLimiter' | 'config'>) =>
  ctx.rateLimiter.named('password-reset', {
    points: ctx.config.PASSWORD_ENDPOINTS_PER_MINUTE,
    durationSec: 60,
    code: 'rate_01',
  });

/** The link to an active account of that email, mailed from ALERT_EMAIL_FROM; nothing for an email of no account. */
async function mailResetLink(ctx: AppContext, email: string, lang: Lang): Promise<void> {
  const account = await findAccountByEmail(ctx.db.kysely, email);
  if (!account || account.status !== 'active' || !ctx.config.SMTP_URL) return;
  const { token } = await ctx.db.kysely.transaction().execute(async (trx) => {
    const issued = await issuePasswordReset(trx, account.id);
    await recordAudit(trx, {
      actor: 'panel:forgot-password',
      action: 'accounts.password-reset',
      target: account.email,
      detail: { mailed: true },
    });
    return issued;
  });
  const t = translator(lang);
  const url = `${ctx.config.publicBaseUrl}${RESET_PATH}${token}`;
  const transport = await ctx.alertMail.transport(ctx.config.SMTP_URL);
  await transport.sendMail({
    from: ctx.config.ALERT_EMAIL_FROM,
    to: account.email,
    subject: t('forgot_mail_subject'),
    text: t('forgot_mail_text', { url }),
  });
}

/** /panel/reset?token=…: the form of a one-time link, which sets the password and is then spent. */
function resetRoutes(scope: FastifyInstance, shared: Shared): void {
  const { ctx } = shared;
  const form = (
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    o: { status?: number; error?: string } = {},
  ) => {
    const v = makeView(ctx, shared.assets(), request);
    const body = html`<form method="post" action="/panel/reset" class="card narrow">
      <input type="hidden" name="_csrf" value="${formToken(request, reply)}" />
      <input type="hidden" name="token" value="${token}" />
      <label for="password">${v.t('new_password')}</label>
      <input
        id="password"
        name="password"
        type="password"
        autocomplete="new-password"
        minlength="8"
        maxlength="128"
        required
        aria-describedby="pw-rules"
      />
      <label for="confirm">${v.t('confirm_password')}</label>
      <input
        id="confirm"
        name="confirm"
        type="password"
        autocomplete="new-password"
        minlength="8"
        maxlength="128"
        required
      />
      <p id="pw-rules" class="help">${v.t('password_rules')}</p>
      <button type="submit">${v.t('reset_submit')}</button>
    </form>`;
    return page(reply, v, 'reset_title', body, o);
  };
  const invalid = (request: FastifyRequest, reply: FastifyReply) => {
    const v = makeView(ctx, shared.assets(), request);
    return page(reply, v, 'reset_title', signinLink(v), { status: 410, error: v.t('reset_invalid') });
  };
  scope.get('/reset', PUBLIC, async (request, reply) => {
    const token = String((request.query as { token?: unknown }).token ?? '');
    if (!(await resetTokenAccount(ctx.db.kysely, token))) return invalid(request, reply);
    return form(request, reply, token);
  });
  scope.post('/reset', PUBLIC, async (request, reply) => {
    const v = makeView(ctx, shared.assets(), request);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const token = field(body, 'token');
    if (!sameForm(request, body)) return form(request, reply, token, { status: 403, error: v.t('signin_expired') });
    const password = typeof body.password === 'string' ? body.password : '';
    if (!meetsPasswordRules(password) || password !== body.confirm)
      return form(request, reply, token, { status: 400, error: v.t('password_rules') });
    const account = await redeemPasswordReset(ctx.db, token, password);
    if (!account) return invalid(request, reply);
    await recordAudit(ctx.db.kysely, {
      actor: `account:${account.id}`,
      action: 'accounts.password-set',
      target: account.email,
      detail: { by: 'reset link' },
      address: request.ip,
    });
    return page(
      reply,
      v,
      'reset_title',
      html`<p class="notice" role="status">${v.t('reset_done')}</p>
        ${signinLink(v)}`,
    );
  });
}

/** The public pages of a forgotten password: /panel/forgot and /panel/reset. */
export function passwordResetRoutes(scope: FastifyInstance, shared: Shared): void {
  forgotRoutes(scope, shared);
  resetRoutes(scope, shared);
}
