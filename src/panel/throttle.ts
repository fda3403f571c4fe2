import type { Executor } from '../db/engine.js';
import type { Config } from '../config.js';

/**
 * Sign-in throttling, counted in the database so every process agrees: at
 * most PANEL_SIGNIN_FAILURES_PER_ACCOUNT refused sign-ins per email and
 * PANEL_SIGNIN_FAILURES_PER_ADDRESS per client address within
 * PANEL_SIGNIN_WINDOW_MINUTES. Past either, sign-in is refused without
 * checking the password until the oldest failure leaves the window.
 * Returns the minutes to wait, or 0 when sign-in may be tried.
 */
export async function signinWaitMinutes(db: Executor, config: Config, email: string, ip: string): Promise<number> {
  const windowMs = config.PANEL_SIGNIN_WINDOW_MINUTES * 60_000;
  const since = Date.now() - windowMs;
  const count = (column: 'email' | 'ip', value: string) =>
    db
      .selectFrom('panel_signin_failures')
      .select([(eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.min('at').as('oldest')])
      .where(column, '=', value)
      .where('at', '>', since)
      .executeTakeFirstOrThrow();
  const [byEmail, byIp] = await Promise.all([count('email', email), count('ip', ip)]);
  const blocked = [
    Number(byEmail.n) >= config.PANEL_SIGNIN_FAILURES_PER_ACCOUNT ? Number(byEmail.oldest) : null,
    Number(byIp.n) >= config.PANEL_SIGNIN_FAILURES_PER_ADDRESS ? Number(byIp.oldest) : null,
  ].filter((v): v is number => v !== null);
  if (blocked.length === 0) return 0;
  return Math.max(1, Math.ceil((Math.max(...blocked) + windowMs - Date.now()) / 60_000));
}

export async function recordSigninFailure(db: Executor, config: Config, email: string, ip: string): Promise<void> {
  const now = Date.now();
  await db.insertInto('panel_signin_failures').values({ email, ip, at: now }).execute();
  const cutoff = now - config.PANEL_SIGNIN_WINDOW_MINUTES * 60_000;
  await db.deleteFrom('panel_signin_failures').where('email', '=', email).where('at', '<=', cutoff).execute();
}

/** A successful sign-in clears the account's count (the address's stays). */
export async function clearSigninFailures(db: Executor, email: string): Promise<void> {
  await db.deleteFrom('panel_signin_failures').where('email', '=', email).execute();
}
