import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../engine.js';

/**
 * Early receipts of every connector (SMPP and HTTP providers) wait in one
 * table: its name says so. On PostgreSQL the key, its index and the id
 * sequence carry the table's name too; SQLite has no rename for an index,
 * so the lookup index is made again under its new name.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await rename(db, 'smpp_receipts', 'carrier_receipts');
}

export async function down(db: Kysely<any>): Promise<void> {
  await rename(db, 'carrier_receipts', 'smpp_receipts');
}

async function rename(db: Kysely<any>, from: string, to: string): Promise<void> {
  await db.schema.dropIndex(`${from}_lookup`).execute();
  await db.schema.alterTable(from).renameTo(to).execute();
  await db.schema.createIndex(`${to}_lookup`).on(to).columns(['carrier', 'carrier_id']).execute();
  if (!isPostgres(db)) return;
  const [fromKey, toKey] = [sql.id(`${from}_pkey`), sql.id(`${to}_pkey`)];
  await sql`alter table ${sql.table(to)} rename constraint ${fromKey} to ${toKey}`.execute(db);
  await sql`alter sequence ${sql.id(`${from}_id_seq`)} rename to ${sql.id(`${to}_id_seq`)}`.execute(db);
}
