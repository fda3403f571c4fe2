import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  void db;
}

export async function down(db: Kysely<any>): Promise<void> {
  void db;
}
