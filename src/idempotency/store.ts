import { affected, type Db } from '../db/engine.js';

/** How long a key answers with its first response. */
export const KEY_TTL_MS = 24 * 3_600_000;
/** How long a running first request holds its key before a repeat may presume it dead and run instead. */
export const RUNNING_LOCK_MS = 60_000;

export interface StoredResponse {
  status: number;
  contentType: string | null;
  body: string;
}

export type Reservation =
  | { kind: 'reserved'; id: number }
  | { kind: 'mismatch' }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'running' };

/**
 * Reserves `key` for this request, or says what it already holds. One
 * conditional INSERT (the unique constraint decides between parallel
 * requests, in any process); an expired key is removed first; a running key
 * whose lock ran out (its process died) is taken over by one conditional UPDATE.
 */
export async function reserve(db: Db, accountId: number, key: string, hash: string): Promise<Reservation> {
  const now = Date.now();
  await db.kysely
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', accountId)
    .where('expires_at', '<', now)
    .execute();
  const inserted = await db.kysely
    .insertInto('idempotency_keys')
    .values({
      account_id: accountId,
      idem_key: key,
      request_hash: hash,
      status_code: null,
      content_type: null,
      response_body: null,
      locked_until: now + RUNNING_LOCK_MS,
      created_at: now,
      expires_at: now + KEY_TTL_MS,
    })
    .onConflict((oc) => oc.columns(['account_id', 'idem_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return { kind: 'reserved', id: inserted.id };
  const row = await db.kysely
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('idem_key', '=', key)
    .executeTakeFirst();
  if (!row) return { kind: 'running' }; // removed meanwhile (released after a failure): the caller looks again
  if (row.request_hash !== hash) return { kind: 'mismatch' };
  if (row.status_code !== null)
    return {
      kind: 'replay',
      response: { status: row.status_code, contentType: row.content_type, body: row.response_body ?? '' },
    };
  if (row.locked_until < now) {
    const took = affected(
      await db.kysely
        .updateTable('idempotency_keys')
        .set({ locked_until: now + RUNNING_LOCK_MS })
        .where('id', '=', row.id)
        .where('locked_until', '=', row.locked_until)
        .where('status_code', 'is', null)
        .execute(),
    );
    if (took > 0) return { kind: 'reserved', id: row.id };
  }
  return { kind: 'running' };
}

export async function saveResponse(db: Db, id: number, response: StoredResponse): Promise<void> {
  await db.kysely
    .updateTable('idempotency_keys')
    .set({ status_code: response.status, content_type: response.contentType, response_body: response.body })
    .where('id', '=', id)
    .execute();
}

/** Frees a key whose request failed in a way worth retrying (5xx, 429): the next repeat runs again. */
export async function release(db: Db, id: number): Promise<void> {
  await db.kysely.deleteFrom('idempotency_keys').where('id', '=', id).where('status_code', 'is', null).execute();
}
