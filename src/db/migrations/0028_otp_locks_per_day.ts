import type { Kysely } from 'kysely';

/**
 * otp_number_days.locks: rounds locked (7 wrong codes) per number per Mexico
 * City day, for the top-level account and its sub-accounts together. The
 * rotation cooldown (OTP_LOCK_COOLDOWN_SECONDS) starts only from the day's
 * OTP_LOCKS_BEFORE_COOLDOWN-th lock; before it, locked + code_rotate gives a
 * new round at once, as the spec's table says.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('otp_number_days')
    .addColumn('locks', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('otp_number_days').dropColumn('locks').execute();
}
