import type { FastifyRequest } from 'fastify';
import { CallerBusy } from '../lib/fair-queue.js';
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
  const usable = typeof password === 'string' && password.length > 0 && password.length <= 1024;
  const ok = usable && (await checkPassword(password, hash, request.ip));
  await finishSignin(db.kysely, attempt, ok === true ? 'passed' : 'failed');
  if (ok === 'busy') throw refuse(429, 'signin_throttled', { minutes: 1 });
  if (!ok) throw refuse(403, 'wrong_password');
}

/**
 * A password typed in the panel, checked in the hashing queue's turn of the
 * address `ip`: 'busy' when that address already has its share of the queue
 * (HASHES_PER_CALLER), false when it does not match or the hash is unreadable.
 */
export function checkPassword(password: string, hash: string, ip: string): Promise<boolean | 'busy'> {
  return verifyPassword(password, hash, ip).catch((err) => (err instanceof CallerBusy ? 'busy' : false));
}
