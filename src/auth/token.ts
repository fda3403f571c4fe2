import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Executor } from '../db/engine.js';
import { selectCallerOfKey, type AuthenticatedAccount } from '../accounts/store.js';

/**
 * Tokens of the legacy login (POST /auth): `mnt_<key id>.<expiry>.<signature>`,
 * the signature an HMAC-SHA256 under a key derived from the server secret.
 * A token names the API key it was issued for, not the account, so rotating
 * the key or archiving the account ends it at once (the key row is read on
 * every request, as for the apikey header).
 */
export const TOKEN_TTL_SECONDS = 24 * 3600;

const SHAPE = /^mnt_(\d{1,15})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

const signature = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

export function signToken(key: Buffer, keyId: number, expiresAtSeconds: number): string {
  const payload = `${keyId}.${expiresAtSeconds}`;
  return `mnt_${payload}.${signature(key, payload)}`;
}

/** Whether a `token` header value is a login token (else it is taken as an API key, as before). */
export const isLoginToken = (value: string) => value.startsWith('mnt_');

export type TokenCheck = { ok: true; keyId: number } | { ok: false; reason: 'invalid' | 'expired' };

/** Checks shape, signature (constant time) and expiry; the key and account are checked by accountForKeyId. */
export function checkToken(key: Buffer, token: string, nowMs: number): TokenCheck {
  const m = SHAPE.exec(token);
  if (!m) return { ok: false, reason: 'invalid' };
  const expected = Buffer.from(signature(key, `${m[1]}.${m[2]}`));
  const given = Buffer.from(m[3]);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  if (Number(m[2]) * 1000 <= nowMs) return { ok: false, reason: 'expired' };
  return { ok: true, keyId: Number(m[1]) };
}

/** The active account of a key that is not revoked, by the key's id. */
export function accountForKeyId(db: Executor, keyId: number): Promise<AuthenticatedAccount | undefined> {
  return selectCallerOfKey(db).where('api_keys.id', '=', keyId).executeTakeFirst();
}

/** An active key (of an active account in an active family) by the key itself, with its caller: for issuing a token. */
export function activeKey(
  db: Executor,
  keyHash: string,
): Promise<(AuthenticatedAccount & { key_id: number }) | undefined> {
  return selectCallerOfKey(db)
    .select('api_keys.id as key_id')
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}
