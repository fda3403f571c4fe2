import type { FastifyRequest } from 'fastify';
import { verifyPassword } from '../lib/passwords.js';
import { shownEmail } from '../accounts/subaccount-email.js';
import { recordSigninFailure, signinWaitMinutes } from './throttle.js';
import { refuse, type View } from './view.js';

/**
 * Re-entering the password (to reveal a secret, change the password): a
 * wrong one counts against the same throttle as sign-in, so a left-open
 * session cannot be used to guess it. Counted by the plain email, as sign-in is.
 */
export async function confirmPassword(request: FastifyRequest, v: View, hash: string, email: string, password: unknown): Promise<void> {
  const { db, config } = v.ctx;
  email = shownEmail(email);
  const wait = await signinWaitMinutes(db.kysely, config, email, request.ip);
  if (wait > 0) throw refuse(429, 'signin_throttled', { minutes: wait });
  const ok = typeof password === 'string' && password.length > 0 && password.length <= 1024 && (await verifyPassword(password, hash).catch(() => false));
  if (!ok) {
    await recordSigninFailure(db.kysely, config, email, request.ip);
    throw refuse(403, 'wrong_password');
  }
}
