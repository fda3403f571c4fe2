import { sql, type Kysely } from 'kysely';
import { withId } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('contact_lists'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('list_key', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    // Lower-cased name: uniqueness (case-insensitive), ordering and search use it.
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('custom_field_1', 'text')
    .addColumn('custom_field_2', 'text')
    .addColumn('custom_field_3', 'text')
    .addColumn('custom_field_4', 'text')
    .addColumn('linked_tool', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // Names are unique among the account's own lists; a list a wallet or loyalty program owns is named by the program and stays out of it.
  await db.schema
    .createIndex('contact_lists_account_name')
    .unique()
    .on('contact_lists')
    .columns(['account_id', 'name_key'])
    .where(sql.ref('linked_tool'), 'is', null)
    .execute();
  await db.schema
    .createIndex('contact_lists_account_order')
    .on('contact_lists')
    .columns(['account_id', 'name_key', 'id'])
    .execute();

  await withId(db, db.schema.createTable('contacts'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('list_id', 'bigint', (c) => c.notNull().references('contact_lists.id').onDelete('cascade'))
    .addColumn('country_code', 'text', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('email', 'text')
    .addColumn('custom_field_1', 'text')
    .addColumn('custom_field_2', 'text')
    .addColumn('custom_field_3', 'text')
    .addColumn('custom_field_4', 'text')
    .addColumn('birthday_date', 'text')
    .addColumn('facebook', 'text')
    .addColumn('twitter', 'text')
    .addColumn('linkedin', 'text')
    .addColumn('instagram', 'text')
    .addColumn('street', 'text')
    .addColumn('zip', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('contacts_list_number', ['list_id', 'number'])
    .execute();
  await db.schema.createIndex('contacts_account').on('contacts').columns(['account_id', 'id']).execute();
  // Keyset pagination of a list's contacts by id (/agendas/get_contacts streams by it).
  await db.schema.createIndex('contacts_list_id').on('contacts').columns(['list_id', 'id']).execute();

  await withId(db, db.schema.createTable('contact_changes'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('list_id', 'bigint', (c) => c.notNull())
    .addColumn('contact_id', 'bigint', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('snapshot', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('contact_changes_poll')
    .on('contact_changes')
    .columns(['account_id', 'action', 'id'])
    .execute();
  await db.schema
    .createIndex('contact_changes_poll_list')
    .on('contact_changes')
    .columns(['list_id', 'action', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['contact_changes', 'contacts', 'contact_lists']) await db.schema.dropTable(t).execute();
}
