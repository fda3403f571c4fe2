import type { Kysely } from 'kysely';

/**
 * Route strategies, quality-aware failover and carrier analytics:
 * - a route's `strategy` (priority, least-cost, weighted) and `weights`;
 * - each message's `route_reason`: why its carrier took it;
 * - `carrier_quality`: a connector's delivery-rate threshold and whether
 *   (since when) it is demoted, shared by every process;
 * - `carrier_receipt_counts`: final receipts per connector per 10 seconds,
 *   so the sliding window is a sum of a few rows, never a scan of messages;
 * - indexes for carrier analytics (messages by carrier and hand-off time) and
 *   the message trace (events by reference).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('carrier_routes')
    .addColumn('strategy', 'text', (c) => c.notNull().defaultTo('priority'))
    .execute();
  await db.schema.alterTable('carrier_routes').addColumn('weights', 'text').execute();
  await db.schema.alterTable('messages').addColumn('route_reason', 'text').execute();
  await db.schema
    .createTable('carrier_quality')
    .addColumn('carrier', 'text', (c) => c.primaryKey())
    .addColumn('min_delivery_rate', 'integer')
    .addColumn('window_minutes', 'integer', (c) => c.notNull().defaultTo(10))
    .addColumn('min_messages', 'integer', (c) => c.notNull().defaultTo(50))
    .addColumn('demoted_at', 'bigint')
    .addColumn('changed_at', 'bigint')
    .addColumn('delivery_rate', 'integer')
    .execute();
  await db.schema
    .createTable('carrier_receipt_counts')
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addColumn('delivered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('carrier_receipt_counts_pkey', ['carrier', 'bucket'])
    .execute();
  await db.schema.createIndex('messages_carrier_sent').on('messages').columns(['carrier', 'sent_at']).execute();
  // Message trace: a message's events by its reference, across accounts.
  await db.schema.createIndex('events_reference').on('events').column('reference').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_reference').execute();
  await db.schema.dropIndex('messages_carrier_sent').execute();
  await db.schema.dropTable('carrier_receipt_counts').execute();
  await db.schema.dropTable('carrier_quality').execute();
  await db.schema.alterTable('messages').dropColumn('route_reason').execute();
  await db.schema.alterTable('carrier_routes').dropColumn('weights').execute();
  await db.schema.alterTable('carrier_routes').dropColumn('strategy').execute();
}
