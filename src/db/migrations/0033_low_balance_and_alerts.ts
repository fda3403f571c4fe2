import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * - accounts.low_balance_units: the account's low-balance threshold (credit
 *   units), null when off; low_balance_sent: 1 once the event of the current
 *   crossing is recorded, back to 0 when the balance rises above the threshold.
 * - alert_episodes: one row per operator alert episode. `open_key` is
 *   `type:subject` while the episode is open and null once closed: its unique
 *   index lets one episode of a kind and subject be open at a time, so two
 *   processes raising the same alert record it once.
 * - alert_deliveries: each alert sent to the operator (webhook or email),
 *   retried by its job.
 * - alert_watches: a subject being watched before it becomes an episode (a
 *   connector not bound since…).
 * - alert_leases: the one evaluator of the deployment holds the lease.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('low_balance_units', 'bigint').execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('low_balance_sent', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await withId(db, db.schema.createTable('alert_episodes'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('open_key', 'text', (c) => c.unique())
    .addColumn('since', 'bigint', (c) => c.notNull())
    .addColumn('opened_at', 'bigint', (c) => c.notNull())
    .addColumn('closed_at', 'bigint')
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alert_episodes_opened').on('alert_episodes').column('opened_at').execute();
  await withId(db, db.schema.createTable('alert_deliveries'))
    .addColumn('episode_id', 'bigint', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .execute();
  await db.schema.createIndex('alert_deliveries_episode').on('alert_deliveries').column('episode_id').execute();
  await db.schema
    .createTable('alert_watches')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('since', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('alert_leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('checked_at', 'bigint')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['alert_leases', 'alert_watches', 'alert_deliveries', 'alert_episodes'])
    await db.schema.dropTable(table).execute();
  await db.schema.alterTable('accounts').dropColumn('low_balance_sent').execute();
  await db.schema.alterTable('accounts').dropColumn('low_balance_units').execute();
}
