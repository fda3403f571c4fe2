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
  const schema =
    db.engine === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(db.kysely)).rows[0].s
      : undefined;
  const migrator = new Migrator({
    db: db.kysely,
    provider: new StaticProvider(),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  let { error, results } = await migrator.migrateToLatest();
  // Kysely checks for its tables by listing the tables of every schema; another
  // schema dropped meanwhile (parallel tests, another deployment's teardown)
  // fails that listing. Nothing was applied then (PostgreSQL runs the
  // migrations in one transaction), so it is safe to look again.
  for (let retry = 0; retry < 5 && error && otherSchemaVanished(error, schema); retry++) {
    ({ error, results } = await migrator.migrateToLatest());
  }
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? error}`);
  }
  return (results ?? []).map((r) => r.migrationName);
}

function otherSchemaVanished(error: unknown, ours: string | undefined): boolean {
  const m = /^schema "([^"]+)" does not exist$/.exec((error as Error)?.message ?? '');
  return m !== null && m[1] !== ours;
}
