import type { Executor } from '../db/engine.js';
import { affected } from '../db/engine.js';

export interface TokenRow {
  id: number;
  name: string;
  token_hash: string;
  read_only: number;
  created_at: number;
  last_used_at: number | null;
}

export async function insertToken(
  db: Executor,
  t: { name: string; tokenHash: string; readOnly: boolean },
): Promise<number> {
  const row = await db
    .insertInto('operator_tokens')
    .values({ name: t.name, token_hash: t.tokenHash, read_only: t.readOnly ? 1 : 0, created_at: Date.now() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

const COLUMNS = ['id', 'name', 'token_hash', 'read_only', 'created_at', 'last_used_at'] as const;

const shaped = (r: TokenRow): TokenRow => ({
  ...r,
  id: Number(r.id),
  created_at: Number(r.created_at),
  last_used_at: r.last_used_at === null ? null : Number(r.last_used_at),
});

export async function activeTokens(db: Executor): Promise<TokenRow[]> {
  const rows = await db
    .selectFrom('operator_tokens')
    .select(COLUMNS)
    .where('revoked_at', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map(shaped);
}

export async function activeTokenNamed(db: Executor, name: string): Promise<boolean> {
  const row = await db
    .selectFrom('operator_tokens')
    .select('id')
    .where('name', '=', name)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

export async function activeTokenByHash(db: Executor, tokenHash: string): Promise<TokenRow | undefined> {
  const row = await db
    .selectFrom('operator_tokens')
    .select(COLUMNS)
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row && shaped(row);
}

export async function anyActiveToken(db: Executor): Promise<boolean> {
  const row = await db
    .selectFrom('operator_tokens')
    .select('id')
    .where('revoked_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function revokeToken(db: Executor, id: number): Promise<boolean> {
  const result = await db
    .updateTable('operator_tokens')
    .set({ revoked_at: Date.now() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return affected(result) === 1;
}

/** Writes the moment of use only when the stored one is older than `before` (one write a minute at most). */
export async function touchToken(db: Executor, id: number, now: number, before: number): Promise<void> {
  await db
    .updateTable('operator_tokens')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', before)]))
    .execute();
}
