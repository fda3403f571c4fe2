import type { Kysely } from 'kysely';

/**
 * Traffic control (docs/operators/traffic.md):
 * - `messages.traffic_class`: `otp`, `transactional` or `bulk`, decided when
 *   the message is accepted; a carrier's line hands over by class. Messages
 *   accepted before the upgrade are `bulk`.
 * - `traffic_settings`: a family's pinned class, its weight in the carrier's
 *   round-robin and its default validity, on the family's top account.
 * - `smpp_users.traffic_class`: an SMPP user's pinned class.
 * - `carrier_window`: each connector's hand-overs per 50 ms bucket, shared by
 *   the processes, so its throughput holds over any sliding second.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('messages')
    .addColumn('traffic_class', 'text', (c) => c.notNull().defaultTo('bulk'))
    .execute();
  await db.schema
    .alterTable('smpp_users')
    .addColumn('traffic_class', 'text', (c) => c.notNull().defaultTo('auto'))
    .execute();
  await db.schema
    .createTable('traffic_settings')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey())
    .addColumn('traffic_class', 'text', (c) => c.notNull().defaultTo('auto'))
    .addColumn('weight', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('validity_minutes', 'integer')
    .execute();
  await db.schema
    .createTable('carrier_window')
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addColumn('used', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('carrier_window_pk', ['carrier', 'bucket'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('carrier_window').execute();
  await db.schema.dropTable('traffic_settings').execute();
  await db.schema.alterTable('smpp_users').dropColumn('traffic_class').execute();
  await db.schema.alterTable('messages').dropColumn('traffic_class').execute();
}
