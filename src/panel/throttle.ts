import type { Kysely } from 'kysely';
import type { Executor } from '../db/engine.js';
import type { Database } from '../db/schema.js';
import type { Config } from '../config.js';
import { finishAttempt, reserveAttempt, windowEnd, type Limit, type Reservation } from '../auth/attempts.js';

/**
 * Sign-in throttling, counted in the database so every process agrees: at
 * most PANEL_SIGNIN_FAILURES_PER_ACCOUNT passwords (or authenticator codes)
 * checked per email and PANEL_SIGNIN_FAILURES_PER_ADDRESS per client address
 * within PANEL_SIGNIN_WINDOW_MINUTES of the first. Each check is reserved
 * before it runs, so parallel attempts cannot all pass a count taken before
 * any of them was recorded; past either limit the attempt is refused unchecked.
 */
export type SigninAttempt = { reservations: Reservation[] } | { waitMinutes: number };

/** A limit that refused: the reservations taken before it in the same transaction are undone. */
class Refused extends Error {
  constructor(readonly key: string) {
    super('attempt refused');
  }
}

const EMAIL = 'signin-email:';

function signinLimits(config: Config, email: string, ip: string): Limit[] {
  const windowMs = config.PANEL_SIGNIN_WINDOW_MINUTES * 60_000;
  return [
    { key: `signin-ip:${ip}`, limit: config.PANEL_SIGNIN_FAILURES_PER_ADDRESS, windowMs },
    { key: `${EMAIL}${email}`, limit: config.PANEL_SIGNIN_FAILURES_PER_ACCOUNT, windowMs },
  ];
}

/** Reserves one check for this email from this address (both, or neither), or says how many minutes to wait. */
export async function reserveSignin(
  db: Kysely<Database>,
  config: Config,
  email: string,
  ip: string,
): Promise<SigninAttempt> {
  try {
    const reservations = await db.transaction().execute(async (trx) => {
      const taken: Reservation[] = [];
      for (const limit of signinLimits(config, email, ip)) {
        const r = await reserveAttempt(trx, limit);
        if (!r) throw new Refused(limit.key);
        taken.push(r);
      }
      return taken;
    });
    return { reservations };
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    const now = Date.now();
    return { waitMinutes: Math.max(1, Math.ceil(((await windowEnd(db, err.key, now)) - now) / 60_000)) };
  }
}

/**
 * After the check: a wrong password or code stays counted; a right one does
 * not ('passed'); a completed sign-in also clears the email's finished
 * failures (the address's stay), never the checks still running beside it.
 */
export async function finishSignin(
  db: Executor,
  attempt: { reservations: Reservation[] },
  outcome: 'failed' | 'passed' | 'signed-in',
): Promise<void> {
  for (const r of attempt.reservations) {
    const clears = outcome === 'signed-in' && r.key.startsWith(EMAIL);
    await finishAttempt(db, r, outcome === 'failed' ? 'failed' : clears ? 'cleared' : 'released');
  }
}
