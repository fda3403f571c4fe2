import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Executor } from '../db/engine.js';
import {
  activeTokenByHash,
  activeTokenNamed,
  activeTokens,
  anyActiveToken,
  insertToken,
  revokeToken,
  touchToken,
} from './tokens-store.js';

/** A refused token command (a bad name, a name in use, no such token). */
export class TokenError extends Error {}

/** What a request knows of the token it came with: never the token or its hash. */
export interface OperatorToken {
  id: number;
  name: string;
  readOnly: boolean;
}

/** Tokens start with this, so a leaked one is recognisable (secret scanners, logs). */
const PREFIX = 'mop_';
/** last_used_at is written at most once a minute per token: a busy client costs no write per request. */
export const LAST_USED_EVERY_MS = 60_000;

const hashOf = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** Creates a token: 32 random bytes, shown this once; only its SHA-256 is stored. */
export async function addOperatorToken(db: Executor, name: string, readOnly: boolean) {
  if (!/^[A-Za-z0-9._@-]{1,64}$/.test(name))
    throw new TokenError('--name is 1 to 64 letters, digits, dots, dashes, underscores or @');
  if (await activeTokenNamed(db, name)) throw new TokenError(`a token named ${name} exists: revoke it first`);
  const token = PREFIX + randomBytes(32).toString('base64url');
  const id = await insertToken(db, { name, tokenHash: hashOf(token), readOnly });
  return { id, name, token, read_only: readOnly };
}

export async function listOperatorTokens(db: Executor) {
  return (await activeTokens(db)).map((t) => ({
    id: t.id,
    name: t.name,
    read_only: t.read_only === 1,
    created_at: new Date(t.created_at).toISOString(),
    last_used_at: t.last_used_at === null ? null : new Date(t.last_used_at).toISOString(),
  }));
}

export async function revokeOperatorToken(db: Executor, id: number): Promise<boolean> {
  return revokeToken(db, id);
}

/** Whether the operator API is on: it is served only while an unrevoked token exists. */
export const operatorApiEnabled = (db: Executor): Promise<boolean> => anyActiveToken(db);

/**
 * The unrevoked token `presented` is, or undefined. Looked up by its SHA-256 (an index), then the hashes compared in
 * constant time; the moment of use is written at most once a minute.
 */
export async function authenticateOperatorToken(db: Executor, presented: string): Promise<OperatorToken | undefined> {
  if (!presented.startsWith(PREFIX) || presented.length > 200) return undefined;
  const hash = hashOf(presented);
  const row = await activeTokenByHash(db, hash);
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
  const now = Date.now();
  if (row.last_used_at === null || row.last_used_at < now - LAST_USED_EVERY_MS)
    await touchToken(db, row.id, now, now - LAST_USED_EVERY_MS);
  return { id: row.id, name: row.name, readOnly: row.read_only === 1 };
}
