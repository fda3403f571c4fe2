import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Prices by destination prefix, carrier costs, credit value, and what each
 * message was charged and cost:
 * - prices: credits per message by channel and number prefix; account_id 0
 *   is the deployment's list, otherwise that account's own.
 * - carrier_costs: money per message part by connector and prefix, in
 *   ten-thousandths of COST_CURRENCY.
 * - rate_revisions: bumped with every change of `prices` or `carrier_costs`,
 *   so each process reloads its cached list only when it changed.
 * - accounts.credit_value: money per credit in ten-thousandths (null: CREDIT_VALUE).
 * - messages.price_prefix (null: a channel or default price), credit_value
 *   (in force at acceptance), cost, cost_prefix and parts (recorded at hand-off),
 *   refunded (1 when its price went back to the account).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('prices'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('channel', 'varchar(16)', (c) => c.notNull())
    .addColumn('prefix', 'varchar(16)', (c) => c.notNull())
    .addColumn('units', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('prices_key', ['account_id', 'channel', 'prefix'])
    .execute();
  await withId(db, db.schema.createTable('carrier_costs'))
    .addColumn('carrier', 'varchar(100)', (c) => c.notNull())
    .addColumn('prefix', 'varchar(16)', (c) => c.notNull())
    .addColumn('cost', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('carrier_costs_key', ['carrier', 'prefix'])
    .execute();
  await db.schema
    .createTable('rate_revisions')
    .addColumn('name', 'varchar(16)', (c) => c.primaryKey())
    .addColumn('revision', 'bigint', (c) => c.notNull())
    .execute();
  await db
    .insertInto('rate_revisions')
    .values([
      { name: 'prices', revision: 0 },
      { name: 'costs', revision: 0 },
    ])
    .execute();
  await db.schema.alterTable('accounts').addColumn('credit_value', 'bigint').execute();
  await db.schema.alterTable('messages').addColumn('price_prefix', 'varchar(16)').execute();
  await db.schema.alterTable('messages').addColumn('credit_value', 'bigint').execute();
  await db.schema.alterTable('messages').addColumn('cost', 'bigint').execute();
  await db.schema.alterTable('messages').addColumn('cost_prefix', 'varchar(16)').execute();
  await db.schema.alterTable('messages').addColumn('parts', 'integer').execute();
  await db.schema
    .alterTable('messages')
    .addColumn('refunded', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Messages closed without being sent before this migration were refunded then (src/messaging/dispatch.ts, closeUnsent).
  await db
    .updateTable('messages')
    .set({ refunded: 1 })
    .where('stage', '=', 2)
    .where('sandbox', '=', 0)
    .where('sent_at', 'is', null)
    .where('status', 'in', ['refused', 'undelivered'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['refunded', 'parts', 'cost_prefix', 'cost', 'credit_value', 'price_prefix'])
    await db.schema.alterTable('messages').dropColumn(column).execute();
  await db.schema.alterTable('accounts').dropColumn('credit_value').execute();
  await db.schema.dropTable('rate_revisions').execute();
  await db.schema.dropTable('carrier_costs').execute();
  await db.schema.dropTable('prices').execute();
}
