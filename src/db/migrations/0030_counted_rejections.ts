import { sql, type Kysely } from 'kysely';
import { withId } from './helpers.js';

const HOUR_MS = 3_600_000;

/**
 * Refused provider webhooks become one row per address, source, reason and
 * hour with a count (the rows so far are folded the same way), pruned by the
 * housekeeping job after REJECTIONS_KEEP_DAYS.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('provider_rejections_counted'))
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('remote_address', 'text', (c) => c.notNull())
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .execute();
  const hour = sql`received_at - received_at % ${sql.lit(HOUR_MS)}`;
  await sql`insert into provider_rejections_counted
      (carrier, reason, remote_address, hour, attempts, received_at, last_at)
    select carrier, reason, remote_address, ${hour}, count(*), min(received_at), max(received_at)
    from provider_rejections group by carrier, reason, remote_address, ${hour} order by min(id)`.execute(db);
  await db.schema.dropTable('provider_rejections').execute();
  await db.schema.alterTable('provider_rejections_counted').renameTo('provider_rejections').execute();
  const key = ['remote_address', 'hour', 'carrier', 'reason'];
  await db.schema.createIndex('provider_rejections_key').on('provider_rejections').columns(key).unique().execute();
  await db.schema.createIndex('provider_rejections_last').on('provider_rejections').column('last_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('provider_rejections_last').execute();
  await db.schema.dropIndex('provider_rejections_key').execute();
  for (const column of ['hour', 'attempts', 'last_at']) {
    await db.schema.alterTable('provider_rejections').dropColumn(column).execute();
  }
}
