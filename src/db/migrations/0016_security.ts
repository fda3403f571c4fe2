import { sql, type Kysely } from 'kysely';

/**
 * Security hardening:
 * - sub-account emails unique per parent, stored as `<parent id> <email>`.
 * - accounts.max_subaccounts: the operator's cap of sub-accounts for one account (null: SUBACCOUNTS_PER_ACCOUNT).
 * - otp_verifications.locked_at: when the last round locked; a new code waits OTP_LOCK_COOLDOWN_SECONDS from it, also after a delete.
 * - otp_number_days: rounds and sends per number per day, counted per top-level account (its sub-accounts share it).
 * - otp_failure_counts: wrong codes per account, for /metrics.
 * - webhooks: failing_since, timeouts and backoff_until for the back-off of a failing endpoint; disabled_at and disabled_reason when it is disabled after days of failures.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Sub-account emails become unique per parent: stored as `<parent id> <email>` (src/accounts/subaccount-email.ts).
  await db
    .updateTable('accounts')
    .set({ email: sql`cast(parent_id as text) || ' ' || email` })
    .where('parent_id', 'is not', null)
    .execute();
  await db.schema.alterTable('accounts').addColumn('max_subaccounts', 'integer').execute();
  await db.schema.alterTable('otp_verifications').addColumn('locked_at', 'bigint').execute();
  await db.schema
    .createTable('otp_number_days')
    .addColumn('root_account_id', 'bigint', (c) => c.notNull())
    .addColumn('country_code', 'text', (c) => c.notNull())
    .addColumn('phone_number', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('rounds', 'integer', (c) => c.notNull())
    .addColumn('sends', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('otp_number_days_pk', ['root_account_id', 'country_code', 'phone_number', 'day'])
    .execute();
  await db.schema
    .createTable('otp_failure_counts')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey())
    .addColumn('failures', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('webhooks').addColumn('failing_since', 'bigint').execute();
  await db.schema
    .alterTable('webhooks')
    .addColumn('timeouts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('webhooks').addColumn('backoff_until', 'bigint').execute();
  await db.schema.alterTable('webhooks').addColumn('disabled_at', 'bigint').execute();
  await db.schema.alterTable('webhooks').addColumn('disabled_reason', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const c of ['disabled_reason', 'disabled_at', 'backoff_until', 'timeouts', 'failing_since'])
    await db.schema.alterTable('webhooks').dropColumn(c).execute();
  await db.schema.dropTable('otp_failure_counts').execute();
  await db.schema.dropTable('otp_number_days').execute();
  await db.schema.alterTable('otp_verifications').dropColumn('locked_at').execute();
  await db.schema.alterTable('accounts').dropColumn('max_subaccounts').execute();
  await db
    .updateTable('accounts')
    .set({ email: sql`substr(email, length(cast(parent_id as text)) + 2)` })
    .where('parent_id', 'is not', null)
    .execute();
}
