import { sql, type Kysely } from 'kysely';
import { withId } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('staff_users'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // Trimmed, lower-cased name: uniqueness ignores case.
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('business_name', 'text', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('password_fingerprint', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('disabled_at', 'bigint')
    .execute();
  // Number, name and password are unique among the account's ACTIVE staff: a disabled user frees them.
  for (const column of ['number', 'name_key', 'password_fingerprint']) {
    await db.schema
      .createIndex(`staff_users_active_${column}`)
      .unique()
      .on('staff_users')
      .columns(['account_id', column])
      .where('status', '=', 'active')
      .execute();
  }

  await withId(db, db.schema.createTable('wallet_programs'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('wallet_key', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('app_client', 'text', (c) => c.notNull())
    .addColumn('list_id', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('wallet_programs_account').on('wallet_programs').columns(['account_id', 'id']).execute();

  await withId(db, db.schema.createTable('wallet_members'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallet_programs.id'))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'bigint', (c) => c.notNull())
    .addColumn('balance_cents', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('enrolled_by', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('wallet_members_wallet_phone', ['wallet_id', 'phone'])
    .addCheckConstraint('wallet_members_balance_not_negative', sql`balance_cents >= 0`)
    .execute();

  await withId(db, db.schema.createTable('wallet_movements'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('wallet_id', 'bigint', (c) => c.notNull())
    .addColumn('member_id', 'bigint', (c) => c.notNull().references('wallet_members.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('balance_after_cents', 'bigint', (c) => c.notNull())
    .addColumn('staff_user_id', 'bigint', (c) => c.references('staff_users.id'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('wallet_movements_member').on('wallet_movements').columns(['member_id', 'id']).execute();

  await withId(db, db.schema.createTable('loyalty_programs'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('loyalty_key', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('app_client', 'text', (c) => c.notNull())
    .addColumn('stamps_required', 'integer', (c) => c.notNull())
    .addColumn('list_id', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('loyalty_programs_account')
    .on('loyalty_programs')
    .columns(['account_id', 'id'])
    .execute();

  await withId(db, db.schema.createTable('loyalty_members'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('program_id', 'bigint', (c) => c.notNull().references('loyalty_programs.id'))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('birthdate', 'text')
    .addColumn('contact_id', 'bigint', (c) => c.notNull())
    .addColumn('stamps', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('completes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rewards_available', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rewards_redeemed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enrolled_by', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('loyalty_members_program_phone', ['program_id', 'phone'])
    .addCheckConstraint('loyalty_members_rewards_not_negative', sql`rewards_available >= 0`)
    .execute();

  await withId(db, db.schema.createTable('loyalty_movements'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('program_id', 'bigint', (c) => c.notNull())
    .addColumn('member_id', 'bigint', (c) => c.notNull().references('loyalty_members.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('stamps_after', 'integer', (c) => c.notNull())
    .addColumn('card_completed', 'integer', (c) => c.notNull())
    .addColumn('staff_user_id', 'bigint', (c) => c.notNull().references('staff_users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('loyalty_movements_member')
    .on('loyalty_movements')
    .columns(['member_id', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    'loyalty_movements',
    'loyalty_members',
    'loyalty_programs',
    'wallet_movements',
    'wallet_members',
    'wallet_programs',
    'staff_users',
  ]) {
    await db.schema.dropTable(t).execute();
  }
}
