import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { allowListAdmits } from '../auth/allow-list.js';
import { ApiError } from '../http/errors.js';
import type { PanelSession } from './session-store.js';
export { loadSession, panelAccount, type Operator, type PanelSession } from './session-store.js';
export {
  createPanelSession as createSession,
  endPanelSessions as endAllSessions,
  endPanelSession as endSession,
  prunePanelSessions as pruneSessions,
} from '../accounts/index.js';

export const SESSION_COOKIE = 'mns_session';
/** Before sign-in there is no session: the form's token is checked against this cookie (double submit). */
export const SIGNIN_COOKIE = 'mns_signin';
export const LANG_COOKIE = 'mns_lang';

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

/** A session of an account whose panel is closed to this address is refused on every request. */
export function checkPanelAddress(session: PanelSession, ip: string): void {
  if (!allowListAdmits(session.allowIps, ip)) throw new ApiError(403, 'panel_address_refused');
}

export function sameToken(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}
