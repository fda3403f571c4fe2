import { sql, type Kysely } from 'kysely';

/**
 * The unsent sweep's index (src/messaging/sweep.ts): messages still at stage 0
 * that carry a claim, by the time it runs out. Partial, so it holds only the
 * messages being handed over or waiting for a retry, never the delivered
 * history; both engines accept the predicate.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX messages_unsent_claim ON messages (claimed_until) WHERE stage = 0 AND claimed_until IS NOT NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('messages_unsent_claim').execute();
}
