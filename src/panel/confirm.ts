import type { FastifyRequest } from 'fastify';
import { verifyPassword } from '../lib/passwords.js';
import { shownEmail } from '../accounts/subaccount-email.js';
import { finishSignin, reserveSignin } from './throttle.js';
import { refuse, type View } from './view.js';

/**
 * Re-entering the password (to reveal a secret, change the password): a
 * wrong one counts against the same throttle as sign-in, so a left-open
 * session cannot be used to guess it. Counted by the plain email, as sign-in is,
 * and reserved before the hash is checked.
 */
export async function confirmPassword(
  request: FastifyRequest,
  v: View,
  hash: string,
  email: string,
  password: unknown,
): Promise<void> {
  const { db, config } = v.ctx;
  const attempt = await reserveSignin(db.kysely, config, shownEmail(email), request.ip);
  if ('waitMinutes' in attempt) throw refuse(429, 'signin_throttled', { minutes: attempt.waitMinutes });
  const ok =
    typeof password === 'string' &&
    password.length > 0 &&
    password.length <= 1024 &&
    (await verifyPassword(password, hash).catch(() => false));
  await finishSignin(db.kysely, attempt, ok ? 'passed' : 'failed');
  if (!ok) throw refuse(403, 'wrong_password');
}
