import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { isPostgres, type Db } from './engine.js';
import type { Database } from './schema.js';
import { migrations } from './migrations/index.js';

class StaticProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  if (await upToDate(db)) return [];
  if (db.engine !== 'postgres') return db.kysely.connection().execute(migrateSqlite);
  // A migration may build an index over millions of rows: no time limit on the connection that runs them.
  return db.kysely.connection().execute(async (conn) => {
    for (const setting of UNLIMITED) await sql`select set_config(${setting}, '0', false)`.execute(conn);
    try {
      return await migrate(conn);
    } finally {
      // Back to the pool's limits; a connection that cannot even do this is broken, and the pool drops it.
      for (const setting of UNLIMITED)
        await sql
          .raw(`reset ${setting}`)
          .execute(conn)
          .catch(() => undefined);
    }
  });
}

const UNLIMITED = ['statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout'];

/**
 * SQLite: every pending migration in one transaction that holds the write lock from its start. Kysely takes no lock on
 * SQLite and runs migrations outside a transaction, so two processes starting on one new file each created the same
 * tables and one failed. The second now waits for the first's COMMIT and then finds nothing pending; a migration that
 * fails leaves the file as it was.
 */
async function migrateSqlite(conn: Kysely<Database>): Promise<string[]> {
  await beginImmediate(conn);
  try {
    const names = await migrate(conn, { disableTransactions: true });
    await sql`commit`.execute(conn);
    return names;
  } catch (error) {
    await sql`rollback`.execute(conn).catch(() => undefined);
    throw error;
  }
}

/** How long a process starting on a file another one is migrating waits for it (a migration may rebuild a big table). */
const MIGRATION_WAIT_MS = 10 * 60_000;

async function beginImmediate(conn: Kysely<Database>): Promise<void> {
  const deadline = Date.now() + MIGRATION_WAIT_MS;
  for (;;) {
    try {
      return void (await sql`begin immediate`.execute(conn));
    } catch (error) {
      // busy_timeout has passed already: another process still migrates.
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
    }
  }
}

async function migrate(kysely: Kysely<Database>, opts: { disableTransactions?: boolean } = {}): Promise<string[]> {
  const migrator = await migratorOf(kysely, opts);
  let { error, results } = await migrator.migrateToLatest();
  // Kysely checks for its tables by listing the tables of every schema; another
  // schema dropped meanwhile (parallel tests, another deployment's teardown)
  // fails that listing. Nothing was applied then (PostgreSQL runs the
  // migrations in one transaction), so it is safe to look again.
  for (let retry = 0; retry < 5 && error && otherSchemaVanished(error, await currentSchema(kysely)); retry++) {
    ({ error, results } = await migrator.migrateToLatest());
  }
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? error}`);
  }
  return (results ?? []).map((r) => r.migrationName);
}

/**
 * What `migrate` would do, without doing it: the migrations this version has
 * and the database has not run, and those the database ran that this version
 * does not know (a newer version ran on it; this one refuses to start).
 */
export async function migrationStatus(db: Db): Promise<{ pending: string[]; unknown: string[] }> {
  const known = await (await migratorOf(db.kysely)).getMigrations();
  const pending = known.filter((m) => m.executedAt === undefined).map((m) => m.name);
  const executed = new Set(known.filter((m) => m.executedAt !== undefined).map((m) => m.name));
  const recorded = pending.length === known.length ? [] : await recordedMigrations(db);
  return { pending, unknown: recorded.filter((name) => !executed.has(name) && !(name in migrations)) };
}

/**
 * Every migration of this version is recorded, and none other: one read,
 * where Kysely's migrator would list the tables, take its lock and read the
 * same rows (the start of every CLI command and of `serve`). Anything else
 * (no table yet, pending or unknown migrations) goes through the migrator.
 */
async function upToDate(db: Db): Promise<boolean> {
  let recorded: string[];
  try {
    recorded = await recordedMigrations(db);
  } catch {
    return false;
  }
  const known = Object.keys(migrations);
  const names = new Set(recorded);
  return names.size === known.length && known.every((name) => names.has(name));
}

async function recordedMigrations(db: Db): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(db.kysely);
  return rows.rows.map((r) => r.name);
}

/**
 * Applies every migration on one PostgreSQL connection inside the transaction
 * the caller opened on it (BEGIN), so that the schema commits with whatever
 * else the caller writes there, or not at all (the move from SQLite).
 */
export async function migrateInOpenTransaction(connection: Kysely<Database>): Promise<void> {
  const migrator = await migratorOf(connection, { disableTransactions: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? error}`);
  }
}

async function migratorOf(kysely: Kysely<Database>, opts: { disableTransactions?: boolean } = {}): Promise<Migrator> {
  // Kysely looks for its own tables in every schema unless told which one: name
  // ours, or a database with several Mensajero schemas would confuse it.
  const schema = await currentSchema(kysely);
  return new Migrator({
    db: kysely,
    provider: new StaticProvider(),
    ...opts,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}

async function currentSchema(kysely: Kysely<Database>): Promise<string | undefined> {
  if (!isPostgres(kysely)) return undefined;
  return (await sql<{ s: string }>`select current_schema() as s`.execute(kysely)).rows[0].s;
}

function otherSchemaVanished(error: unknown, ours: string | undefined): boolean {
  const m = /^schema "([^"]+)" does not exist$/.exec((error as Error)?.message ?? '');
  return m !== null && m[1] !== ours;
}
