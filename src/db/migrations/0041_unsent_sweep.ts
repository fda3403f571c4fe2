import { sql, type Kysely } from 'kysely';

/**
 * The unsent sweep's index (src/messaging/sweep.ts): messages never sent that
 * carry a claim, by the time it runs out. Partial, so it holds only the
 * messages being handed over or waiting for a retry, never the history; both
 * engines accept the predicate. It names sent_at (set by the hand-off, which
 * updates an indexed column anyway) rather than stage, so the final receipt,
 * which moves the stage, stays a HOT update on PostgreSQL; a message closed
 * unsent has its claim cleared (closeUnsent).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX messages_unsent_claim ON messages (claimed_until) WHERE sent_at IS NULL AND claimed_until IS NOT NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('messages_unsent_claim').execute();
}
