import { apiKeyHints, type KeyHint } from '../../accounts/index.js';
import type { Executor } from '../../db/engine.js';
import { formatLocal } from '../../lib/time.js';

/** Who accepted a message, as the trace shows it. */
export type AcceptedBy =
  | { kind: 'api_key'; key_id: number; key: string | null; key_created_at: string | null; key_revoked: boolean }
  | { kind: 'smpp'; system_id: string }
  | { kind: string };

const keyIdOf = (by: string | null) => (by?.startsWith('key:') ? Number(by.slice(4)) : null);

/** The API keys named by these campaigns' accepted_by, each opened once. */
export function keyHintsOf(db: Executor, encryptionKey: Buffer, acceptedBy: Array<string | null>) {
  const ids = [...new Set(acceptedBy.map(keyIdOf).filter((id): id is number => Number.isSafeInteger(id)))];
  return apiKeyHints(db, encryptionKey, ids);
}

/**
 * `key:<id>` → the key (its start, never the key), `smpp:<system id>` → the
 * SMPP user, `panel`; a campaign that recorded none (an OTP a job resent, an
 * automatic reply, a message accepted before this was recorded) names its source.
 */
export function describeAcceptedBy(by: string | null, source: string, keys: Map<number, KeyHint>): AcceptedBy {
  const keyId = keyIdOf(by);
  if (keyId !== null) {
    const key = keys.get(keyId);
    return {
      kind: 'api_key',
      key_id: keyId,
      key: key?.hint ?? null,
      key_created_at: key ? formatLocal(key.created_at) : null,
      key_revoked: key ? key.revoked_at !== null : true,
    };
  }
  if (by?.startsWith('smpp:')) return { kind: 'smpp', system_id: by.slice(5) };
  return { kind: by ?? source };
}
