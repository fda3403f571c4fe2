import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Executor } from '../db/engine.js';
import { randomToken } from '../lib/ids.js';
import { sha256Hex } from '../lib/secrets.js';
import { panelAllowList, type Account } from '../accounts/index.js';
import { allowListAdmits } from '../auth/allow-list.js';
import { ApiError } from '../http/errors.js';
import type { PrincipalKind } from './tables.js';

export const SESSION_COOKIE = 'mns_session';
/** Before sign-in there is no session: the form's token is checked against this cookie (double submit). */
export const SIGNIN_COOKIE = 'mns_signin';
export const LANG_COOKIE = 'mns_lang';

export interface Operator {
  id: number;
  email: string;
}

/** The signed-in browser of a request: an account (or sub-account) or an operator. */
export interface PanelSession {
  id: number;
  csrf: string;
  kind: PrincipalKind;
  /** Password given, authenticator code still to come: only the code page is open. */
  pendingTotp: boolean;
  account?: Account;
  /** The allow-list the panel applies to this account's requests (see panelAllowList); null: none. */
  allowIps: string | null;
  operator?: Operator;
}

export function readCookies(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    try {
      out[name] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      /* a malformed cookie is ignored */
    }
  }
  return out;
}

/**
 * HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site form
 * posts), Path=/panel, and Secure whenever the browser reached us over HTTPS
 * (directly or, with TRUST_PROXY, through a proxy that says so).
 */
export function setCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  name: string,
  value: string,
  maxAgeSeconds: number,
  httpOnly = true,
): void {
  const attributes = [
    `${name}=${encodeURIComponent(value)}`,
    'Path=/panel',
    `Max-Age=${maxAgeSeconds}`,
    'SameSite=Lax',
  ];
  if (httpOnly) attributes.push('HttpOnly');
  if (request.protocol === 'https') attributes.push('Secure');
  const previous = reply.getHeader('set-cookie');
  const list = previous === undefined ? [] : Array.isArray(previous) ? previous.map(String) : [String(previous)];
  reply.header('set-cookie', [...list, attributes.join('; ')]);
}

export const clearCookie = (request: FastifyRequest, reply: FastifyReply, name: string) =>
  setCookie(request, reply, name, '', 0);

/** Starts a session; returns the cookie token (only its hash is stored). */
export async function createSession(
  db: Executor,
  kind: PrincipalKind,
  principalId: number,
  hours: number,
  pendingTotp = false,
): Promise<string> {
  const token = randomToken(32);
  const now = Date.now();
  await db
    .insertInto('panel_sessions')
    .values({
      token_hash: sha256Hex(token),
      csrf_token: randomToken(24),
      kind,
      principal_id: principalId,
      created_at: now,
      expires_at: now + hours * 3_600_000,
      pending_totp: pendingTotp ? 1 : 0,
    })
    .execute();
  return token;
}

/**
 * The live session of a cookie token, with its operator or its account (an
 * active one whose parent, if any, is active too); undefined otherwise.
 */
export async function loadSession(db: Executor, token: string | undefined): Promise<PanelSession | undefined> {
  if (!token || token.length > 100) return undefined;
  const row = await db
    .selectFrom('panel_sessions')
    .selectAll()
    .where('token_hash', '=', sha256Hex(token))
    .where('expires_at', '>', Date.now())
    .executeTakeFirst();
  if (!row) return undefined;
  const pendingTotp = row.pending_totp === 1;
  const base = { id: Number(row.id), csrf: row.csrf_token, kind: row.kind, pendingTotp, allowIps: null };
  if (row.kind === 'operator') {
    const operator = await db
      .selectFrom('panel_operators')
      .select(['id', 'email'])
      .where('id', '=', row.principal_id)
      .executeTakeFirst();
    return operator ? { ...base, operator: { id: Number(operator.id), email: operator.email } } : undefined;
  }
  const found = await panelAccount(db, row.principal_id);
  if (!found) return undefined;
  const { panel_allow_ips: allowIps, ...account } = found;
  return { ...base, account, allowIps };
}

type PanelAccount = Account & { panel_allow_ips: string | null };

/**
 * The account of a panel session with the allow-list its panel applies, read
 * with its parent in one query: a suspended family has no session.
 */
export function panelAccount(db: Executor, id: number): Promise<PanelAccount | undefined> {
  return db
    .selectFrom('accounts')
    .leftJoin('accounts as parent', 'parent.id', 'accounts.parent_id')
    .selectAll('accounts')
    .select(panelAllowList.as('panel_allow_ips'))
    .where('accounts.id', '=', id)
    .where('accounts.status', '=', 'active')
    .where((eb) => eb.or([eb('accounts.parent_id', 'is', null), eb('parent.status', '=', 'active')]))
    .executeTakeFirst();
}

/** A session of an account whose panel is closed to this address is refused on every request. */
export function checkPanelAddress(session: PanelSession, ip: string): void {
  if (!allowListAdmits(session.allowIps, ip)) throw new ApiError(403, 'panel_address_refused');
}

export async function endSession(db: Executor, sessionId: number): Promise<void> {
  await db.deleteFrom('panel_sessions').where('id', '=', sessionId).execute();
}

/** Signs a person out everywhere: every browser of theirs. */
export async function endAllSessions(db: Executor, kind: PrincipalKind, principalId: number): Promise<void> {
  await db.deleteFrom('panel_sessions').where('kind', '=', kind).where('principal_id', '=', principalId).execute();
}

/** Expired sessions are useless rows: removed at each sign-in. */
export async function pruneSessions(db: Executor): Promise<void> {
  await db.deleteFrom('panel_sessions').where('expires_at', '<=', Date.now()).execute();
}

export function sameToken(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}
