import type { Kysely } from 'kysely';

/**
 * accounts.long_sms and accounts.unicode_sms: what the account may send over
 * HTTP (`accounts set --long-sms`, `--unicode`). 1 on, 0 off, null: as its
 * parent (a top-level account: off).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('long_sms', 'integer').execute();
  await db.schema.alterTable('accounts').addColumn('unicode_sms', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('unicode_sms').execute();
  await db.schema.alterTable('accounts').dropColumn('long_sms').execute();
}
