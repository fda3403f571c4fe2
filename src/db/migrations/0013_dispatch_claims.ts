import type { Kysely } from 'kysely';

/** messages.claimed_until: the lease under which one dispatcher submits a message to its carrier. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('claimed_until', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('claimed_until').execute();
}
