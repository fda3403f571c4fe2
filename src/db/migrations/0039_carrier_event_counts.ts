import type { Kysely } from 'kysely';

/**
 * Carrier analytics: what each connector counted at hand-off (throttling
 * answers, refusals, errors), summed per minute by every process, so
 * `carriers stats` shows them for any period across processes. A process
 * adds its increments once per upkeep round, never per message.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('carrier_event_counts')
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('minute', 'bigint', (c) => c.notNull())
    .addColumn('throttled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('refused', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('errors', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('carrier_event_counts_pkey', ['carrier', 'minute'])
    .execute();
  // Pruning and `carriers stats` read a period across connectors.
  await db.schema.createIndex('carrier_event_counts_minute').on('carrier_event_counts').column('minute').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('carrier_event_counts').execute();
}
