import { Secret, TOTP } from 'otpauth';
import type { Executor } from '../db/engine.js';
import { saveUnconfirmedSecret, totpRow, useStep } from './totp-store.js';
export { disableTotp, totpRow } from './totp-store.js';
import { decrypt, encrypt } from '../lib/secrets.js';
import type { PrincipalKind } from './tables.js';

/** RFC 6238 with the parameters every authenticator app uses: SHA-1, 6 digits, 30 seconds. */
const totpOf = (secretBase32: string, label: string) =>
  new TOTP({
    issuer: 'Mensajero',
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: Secret.fromBase32(secretBase32),
  });

export async function totpEnabled(db: Executor, kind: PrincipalKind, principalId: number): Promise<boolean> {
  return (await totpRow(db, kind, principalId))?.enabled === 1;
}

/** A new secret, not yet on (a first code confirms it); replaces an unconfirmed one. Returns the otpauth:// URI and the secret to type. */
export async function startTotp(
  db: Executor,
  key: Buffer,
  kind: PrincipalKind,
  principalId: number,
  label: string,
): Promise<{ uri: string; secret: string }> {
  const secret = new Secret({ size: 20 }).base32;
  await saveUnconfirmedSecret(db, kind, principalId, encrypt(key, secret));
  return { uri: totpOf(secret, label).toString(), secret };
}

/**
 * Checks a code (the current step or one either side, for clock drift) and
 * uses it up: the conditional update on last_step lets each step's code
 * through once, also under parallel attempts. `enable` turns two-step
 * sign-in on with the first good code.
 */
export async function useTotpCode(
  db: Executor,
  key: Buffer,
  kind: PrincipalKind,
  principalId: number,
  code: string,
  enable = false,
): Promise<boolean> {
  if (!/^\d{6}$/.test(code)) return false;
  const row = await totpRow(db, kind, principalId);
  if (!row || (row.enabled !== 1 && !enable)) return false;
  const totp = totpOf(decrypt(key, row.secret_enc), 'x');
  const delta = totp.validate({ token: code, window: 1 });
  if (delta === null) return false;
  const step = Math.floor(Date.now() / 30_000) + delta;
  return useStep(db, kind, principalId, step);
}
