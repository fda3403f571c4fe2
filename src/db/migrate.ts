import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './engine.js';
import { migrations } from './migrations/index.js';

class StaticProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  // Kysely looks for its own tables in every schema unless told which one: name
  // ours, or a database with several Mensajero schemas would confuse it.
  const schema = db.engine === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(db.kysely)).rows[0].s : undefined;
  const migrator = new Migrator({ db: db.kysely, provider: new StaticProvider(), ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? error}`);
  }
  return (results ?? []).map((r) => r.migrationName);
}
