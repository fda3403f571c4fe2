import { createHash } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { recordAudit, type AuditInput } from '../audit/service.js';
import type { Db } from '../db/engine.js';
import { migrateInOpenTransaction } from '../db/migrate.js';
import type { Database } from '../db/schema.js';

/** One table as moved: its rows and the checksum of their values, the same on both sides. */
export interface MovedTable {
  table: string;
  rows: number;
  checksum: string;
}

/** Why a move was refused before anything was written (the CLI exits 2). */
export class MoveRefused extends Error {}

/** Kysely's own bookkeeping: the migrations write it on the target. */
const MIGRATION_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);
/** PostgreSQL takes at most 65,535 parameters a statement. */
const PARAMETERS_PER_INSERT = 30_000;
const READ_PAGE = 5_000;

/**
 * Copies a SQLite database into an empty PostgreSQL database (or schema), atomically: one PostgreSQL transaction
 * creates the schema (every migration), removes the rows the migrations seed, copies every table (parents before the
 * tables that reference them), moves each id sequence past the largest id, and compares each table's row count and
 * checksum read back from PostgreSQL with the source's; any difference or failure rolls everything back, leaving the
 * target as empty as it was. The source is read in one read transaction: a consistent snapshot of the moment the move
 * began (stop the service first: what it writes later is not moved). `audit`, given, is recorded in the target's
 * audit log in the same transaction, after the checks (the command line records it in the source's as it does for
 * every change).
 */
export async function moveDatabase(sourceFile: string, target: Db, audit?: AuditInput): Promise<MovedTable[]> {
  if (target.engine !== 'postgres') throw new MoveRefused('the target must be a PostgreSQL database (postgres://…)');
  const source = new SQLite(sourceFile, { readonly: true, fileMustExist: true });
  try {
    source.exec('BEGIN'); // one snapshot for every table
    const tables = sourceTables(source);
    await refuseNonEmpty(target.kysely);
    return await target.kysely.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      try {
        const moved = await copyAll(source, conn, tables);
        // The move's own audit entry goes to the target too, in its transaction: the log the service reads next.
        if (audit) await recordAudit(conn, audit);
        await sql`commit`.execute(conn);
        return moved;
      } catch (err) {
        await sql`rollback`.execute(conn).catch(() => undefined);
        throw err;
      }
    });
  } finally {
    source.close();
  }
}

async function copyAll(source: SQLite.Database, conn: Kysely<Database>, tables: string[]): Promise<MovedTable[]> {
  await migrateInOpenTransaction(conn);
  const targetTables = await tablesInOrder(conn);
  const missing = tables.filter((t) => !targetTables.includes(t));
  if (missing.length > 0)
    throw new MoveRefused(
      `the source has tables this version does not know (${missing.join(', ')}): move with the version that wrote it`,
    );
  await sql.raw(`truncate ${targetTables.map(quote).join(', ')}`).execute(conn);
  const moved: MovedTable[] = [];
  for (const table of targetTables) {
    const columns = await targetColumns(conn, table);
    const copied = tables.includes(table)
      ? await copyTable(source, conn, table, columns).catch((err: Error) => {
          throw new Error(`${table}: ${err.message}; nothing was moved`, { cause: err });
        })
      : emptyTable(table);
    const readBack = await targetChecksum(conn, table, columns);
    if (readBack.rows !== copied.rows || readBack.checksum !== copied.checksum)
      throw new Error(
        `${table}: ${copied.rows} rows read from SQLite, ${readBack.rows} in PostgreSQL, checksums ${copied.checksum} and ${readBack.checksum}; nothing was moved`,
      );
    await resetSequences(conn, table);
    moved.push(copied);
  }
  return moved;
}

function sourceTables(source: SQLite.Database): string[] {
  const rows = source
    .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`)
    .pluck()
    .all() as string[];
  return rows.filter((name) => !MIGRATION_TABLES.has(name));
}

/** The target holds no table of ours and no row: a database or schema nobody used yet. */
async function refuseNonEmpty(kysely: Kysely<Database>): Promise<void> {
  const { rows } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(kysely);
  if (rows.length > 0)
    throw new MoveRefused(
      `the target is not empty (${rows.length} tables in its schema, e.g. ${rows[0].table_name}): move into a new database or schema`,
    );
}

/** The tables of the target's schema, each after the tables it references (a reference to itself aside). */
async function tablesInOrder(conn: Kysely<Database>): Promise<string[]> {
  const { rows: names } = await sql<{ t: string }>`
    select table_name as t from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(conn);
  const { rows: refs } = await sql<{ child: string; parent: string }>`
    select c.relname as child, p.relname as parent from pg_constraint k
    join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
    where k.contype = 'f' and c.relnamespace = current_schema()::regnamespace`.execute(conn);
  const order: string[] = [];
  const placed = new Set<string>();
  const place = (table: string, path: Set<string>) => {
    if (placed.has(table) || path.has(table)) return;
    path.add(table);
    for (const r of refs) if (r.child === table && r.parent !== table) place(r.parent, path);
    placed.add(table);
    order.push(table);
  };
  for (const { t } of names) if (!MIGRATION_TABLES.has(t)) place(t, new Set());
  return order;
}

interface Column {
  name: string;
  type: string;
}

async function targetColumns(conn: Kysely<Database>, table: string): Promise<Column[]> {
  const { rows } = await sql<{ name: string; type: string }>`
    select column_name as name, data_type as type from information_schema.columns
    where table_schema = current_schema() and table_name = ${table} order by column_name`.execute(conn);
  for (const c of rows)
    if (!['bigint', 'integer', 'smallint', 'text', 'character varying', 'double precision'].includes(c.type))
      throw new Error(`${table}.${c.name} is of type ${c.type}, which the move does not know how to copy`);
  return rows;
}

async function copyTable(
  source: SQLite.Database,
  conn: Kysely<Database>,
  table: string,
  columns: Column[],
): Promise<MovedTable> {
  const sourceColumns = (source.pragma(`table_info(${quote(table)})`) as Array<{ name: string }>).map((c) => c.name);
  if (sourceColumns.length !== columns.length || !columns.every((c) => sourceColumns.includes(c.name)))
    throw new MoveRefused(
      `${table} has other columns in the source than this version writes: move with the version that wrote it`,
    );
  const rowsPerInsert = Math.max(1, Math.floor(PARAMETERS_PER_INSERT / columns.length));
  const sum = new RowSum();
  let batch: Array<Record<string, unknown>> = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await (conn as Kysely<any>).insertInto(table).values(batch).execute();
    batch = [];
  };
  const read = source.prepare(`select ${columns.map((c) => quote(c.name)).join(', ')} from ${quote(table)}`);
  for (const row of read.iterate() as Iterable<Record<string, unknown>>) {
    sum.add(columns.map((c) => row[c.name] ?? null));
    batch.push(row);
    if (batch.length >= rowsPerInsert) await flush();
  }
  await flush();
  return { table, rows: sum.rows, checksum: sum.hex() };
}

const emptyTable = (table: string): MovedTable => ({ table, rows: 0, checksum: new RowSum().hex() });

/** The same checksum over what PostgreSQL now holds, read in pages along the physical order (ctid). */
async function targetChecksum(conn: Kysely<Database>, table: string, columns: Column[]): Promise<MovedTable> {
  const sum = new RowSum();
  const list = columns.map((c) => quote(c.name)).join(', ');
  let after = '(0,0)';
  for (;;) {
    const { rows } = await sql<
      Record<string, unknown>
    >`${sql.raw(`select ctid::text as "__ctid", ${list} from ${quote(table)}`)}
      where ctid > ${after}::tid order by ctid limit ${READ_PAGE}`.execute(conn);
    for (const row of rows) sum.add(columns.map((c) => row[c.name] ?? null));
    if (rows.length < READ_PAGE) break;
    after = rows[rows.length - 1].__ctid as string;
  }
  return { table, rows: sum.rows, checksum: sum.hex() };
}

/** Each id sequence continues after the largest id copied, so the next row the service writes gets a new one. */
async function resetSequences(conn: Kysely<Database>, table: string): Promise<void> {
  const { rows } = await sql<{ column_name: string; seq: string | null }>`
    select column_name, pg_get_serial_sequence(quote_ident(${table}), column_name) as seq
    from information_schema.columns where table_schema = current_schema() and table_name = ${table}`.execute(conn);
  for (const { column_name, seq } of rows) {
    if (!seq) continue;
    await sql`select setval(${seq}::regclass, coalesce((${sql.raw(`select max(${quote(column_name)}) from ${quote(table)}`)}), 0) + 1, false)`.execute(
      conn,
    );
  }
}

/**
 * A checksum of a table's rows that does not depend on their order (the engines sort text differently): the sum,
 * modulo 2^128, of the first 16 bytes of each row's SHA-256. A row's values are written the same way whichever engine
 * they come from: null, a number in its shortest decimal form, text as its UTF-8 bytes, each with its length.
 */
class RowSum {
  rows = 0;
  private sum = 0n;

  add(values: unknown[]): void {
    const hash = createHash('sha256');
    for (const v of values) {
      const text = v === null ? '\u0000' : typeof v === 'bigint' || typeof v === 'number' ? `n${v}` : `s${String(v)}`;
      hash.update(`${Buffer.byteLength(text)}:${text}`);
    }
    this.sum = (this.sum + BigInt(`0x${hash.digest('hex').slice(0, 32)}`)) % (1n << 128n);
    this.rows++;
  }

  hex(): string {
    return this.sum.toString(16).padStart(32, '0');
  }
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
