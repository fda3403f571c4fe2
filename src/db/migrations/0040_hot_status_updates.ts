import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../engine.js';

/**
 * PostgreSQL: room on each page of `messages` and `jobs` for the new versions
 * of their rows, so that an update touching no indexed column is HOT (no
 * index entry written, the old version pruned in place). A message's claim
 * and its final status change no indexed column; a job's lease neither. The
 * setting shapes pages written from now on; existing pages fill up as they are
 * rewritten (VACUUM FULL or pg_repack apply it at once). SQLite has no such
 * setting: nothing to do.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`ALTER TABLE messages SET (fillfactor = 80)`.execute(db);
  await sql`ALTER TABLE jobs SET (fillfactor = 70)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`ALTER TABLE messages RESET (fillfactor)`.execute(db);
  await sql`ALTER TABLE jobs RESET (fillfactor)`.execute(db);
}
