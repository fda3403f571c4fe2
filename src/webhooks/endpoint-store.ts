import { sql, type Selectable } from 'kysely';
import type { Executor } from '../db/engine.js';
import { affected } from '../db/engine.js';
import { decrypt, encrypt } from '../lib/secrets.js';
import { generateWebhookSecret } from '../outbound/signature.js';
import { healthyEndpoint } from './endpoint-health.js';
import type { WebhooksTable } from './tables.js';

export type Webhook = Selectable<WebhooksTable>;

export async function findWebhook(db: Executor, accountId: number): Promise<Webhook | undefined> {
  return db.selectFrom('webhooks').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/** Accounts among `accountIds` whose webhook is registered and enabled. */
export async function enabledAccounts(db: Executor, accountIds: number[]): Promise<Set<number>> {
  if (accountIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('webhooks')
    .select('account_id')
    .where('account_id', 'in', accountIds)
    .where('status', '=', 1)
    .execute();
  return new Set(rows.map((r) => Number(r.account_id)));
}

export type SaveOutcome = 'saved' | 'changed_meanwhile' | 'account_closed';

/**
 * Saves the webhook only if it is still as it was read before the
 * registration check (`expectedVersion`; null = none registered) and the
 * account is still active. Call inside a transaction: on PostgreSQL the
 * account row is share-locked (`lockAccount`) so an archive waits for it.
 */
export async function saveWebhook(
  db: Executor,
  accountId: number,
  url: string,
  status: 0 | 1,
  expectedVersion: number | null,
  lockAccount: boolean,
): Promise<SaveOutcome> {
  const now = Date.now();
  const account = db.selectFrom('accounts').select('id').where('id', '=', accountId).where('status', '=', 'active');
  const active = await (lockAccount ? account.forShare() : account).executeTakeFirst();
  if (!active) return 'account_closed';
  if (expectedVersion === null) {
    const inserted = await db
      .insertInto('webhooks')
      .values({ account_id: accountId, url, status, version: 1, created_at: now, updated_at: now })
      .onConflict((oc) => oc.column('account_id').doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1 ? 'saved' : 'changed_meanwhile';
  }
  const updated = await db
    .updateTable('webhooks')
    .set({ url, status, version: sql`version + 1`, updated_at: now, ...healthyEndpoint })
    .where('account_id', '=', accountId)
    .where('version', '=', expectedVersion)
    .executeTakeFirst();
  return affected(updated) === 1 ? 'saved' : 'changed_meanwhile';
}

/** Sets the status of the registered webhook; false when none is registered. */
export async function setWebhookStatus(db: Executor, accountId: number, status: 0 | 1): Promise<boolean> {
  const updated = await db
    .updateTable('webhooks')
    .set({ status, version: sql`version + 1`, updated_at: Date.now(), ...(status === 1 ? healthyEndpoint : {}) })
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return affected(updated) === 1;
}

/** Removes the webhook and cancels the account's pending events (call inside a transaction). */
export async function deleteWebhook(db: Executor, accountId: number): Promise<{ deleted: boolean; cancelled: number }> {
  const deleted = await db.deleteFrom('webhooks').where('account_id', '=', accountId).executeTakeFirst();
  const cancelled = await db
    .updateTable('events')
    .set({ state: 'cancelled', next_attempt_at: null })
    .where('account_id', '=', accountId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return { deleted: affected(deleted) === 1, cancelled: affected(cancelled) };
}

/** The account's signing secret, created on first use (two racing creators agree on the first one stored). */
export async function webhookSecret(db: Executor, key: Buffer, accountId: number): Promise<string> {
  const existing = await db
    .selectFrom('webhook_secrets')
    .select('secret_enc')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (existing) return decrypt(key, existing.secret_enc);
  await db
    .insertInto('webhook_secrets')
    .values({ account_id: accountId, secret_enc: encrypt(key, generateWebhookSecret()), created_at: Date.now() })
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
  const row = await db
    .selectFrom('webhook_secrets')
    .select('secret_enc')
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return decrypt(key, row.secret_enc);
}

/** Replaces the signing secret; deliveries from now on are signed with the new one. */
export async function rotateWebhookSecret(db: Executor, key: Buffer, accountId: number): Promise<string> {
  const secret = generateWebhookSecret();
  const secret_enc = encrypt(key, secret);
  await db
    .insertInto('webhook_secrets')
    .values({ account_id: accountId, secret_enc, created_at: Date.now() })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ secret_enc, created_at: Date.now() }))
    .execute();
  return secret;
}
