import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * - spend_limits: a family's daily spending limit in credit units (set on the top-level account).
 * - spend_days: what each family was debited per Mexico City day, with the current hour's share and its usual hourly
 *   spend of the 7 days before (the spike check), and the limit the last debit saw; `limit_alerted` / `spike_hour` make each alert once per day / hour.
 * - otp_prefix_counts: OTP codes created and verified per family, destination prefix and time bucket (the pumping
 *   guard's sliding window).
 * - otp_prefix_blocks: prefixes the guard blocked, for one family (root_account_id) or the deployment (null).
 * - otp_verifications.pumping_counted: 1 while the current code counts toward the guard (not a code_show test), so
 *   that only its verification counts too.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('otp_verifications')
    .addColumn('pumping_counted', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('spend_limits')
    .addColumn('root_account_id', 'bigint', (c) => c.primaryKey())
    .addColumn('daily_units', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('spend_days')
    .addColumn('root_account_id', 'bigint', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('units', 'bigint', (c) => c.notNull())
    .addColumn('limit_units', 'bigint')
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('hour_units', 'bigint', (c) => c.notNull())
    .addColumn('usual_hour_units', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('limit_alerted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('spike_hour', 'bigint')
    .addPrimaryKeyConstraint('spend_days_pk', ['root_account_id', 'day'])
    .execute();
  await db.schema
    .createTable('otp_prefix_counts')
    .addColumn('root_account_id', 'bigint', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addColumn('created', 'integer', (c) => c.notNull())
    .addColumn('verified', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('otp_prefix_counts_pk', ['root_account_id', 'prefix', 'bucket'])
    .execute();
  await withId(db, db.schema.createTable('otp_prefix_blocks'))
    .addColumn('root_account_id', 'bigint')
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('since', 'bigint', (c) => c.notNull())
    .addColumn('until', 'bigint', (c) => c.notNull())
    .addColumn('created', 'integer', (c) => c.notNull())
    .addColumn('verified', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('otp_prefix_blocks_prefix')
    .on('otp_prefix_blocks')
    .columns(['prefix', 'until'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['otp_prefix_blocks', 'otp_prefix_counts', 'spend_days', 'spend_limits'])
    await db.schema.dropTable(table).execute();
  await db.schema.alterTable('otp_verifications').dropColumn('pumping_counted').execute();
}
