import type { Executor } from '../db/engine.js';
import { openApiKey } from './keys.js';

/** Characters of a key shown to tell it apart (`mns_` and four of its random ones): never enough to use it. */
const HINT_LENGTH = 8;

export interface KeyHint {
  /** `mns_AbCd…`: what the customer sees at the start of their key (null: sealed under another secret). */
  hint: string | null;
  created_at: number;
  revoked_at: number | null;
}

/** The API keys of these ids as support may name them (a start of the key, when it was made, whether revoked). */
export async function apiKeyHints(db: Executor, encryptionKey: Buffer, ids: number[]): Promise<Map<number, KeyHint>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('api_keys')
    .select(['id', 'key_enc', 'created_at', 'revoked_at'])
    .where('id', 'in', ids)
    .execute();
  return new Map(
    rows.map((r) => [
      Number(r.id),
      {
        hint: hintOf(encryptionKey, r.key_enc),
        created_at: Number(r.created_at),
        revoked_at: r.revoked_at === null ? null : Number(r.revoked_at),
      },
    ]),
  );
}

/** The start of a key; null when it cannot be opened (sealed under another MENSAJERO_SECRET). */
function hintOf(encryptionKey: Buffer, sealed: string): string | null {
  try {
    return `${openApiKey(encryptionKey, sealed).slice(0, HINT_LENGTH)}…`;
  } catch {
    return null;
  }
}
