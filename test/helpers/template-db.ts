import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { openDatabase } from '../../src/db/engine.js';
import { migrateToLatest } from '../../src/db/migrate.js';

/**
 * A migrated database per test process, copied for every harness instead of
 * running the migrations again: a migrated SQLite file, and on PostgreSQL
 * `pg_dump`'s text of a migrated schema, replayed into each new schema. The
 * copy is what the migrations built (tables, indexes, triggers and the rows
 * they insert, `kysely_migration` included), so the service starting on it
 * finds nothing pending. Built at first use, so always from this checkout's
 * migrations. Tests of the migrations themselves do not use it.
 */

let sqliteTemplate: Promise<string> | undefined;

/** Writes a migrated SQLite database at `file` (which must not be open). */
export async function copySqliteTemplate(file: string): Promise<void> {
  const template = await (sqliteTemplate ??= buildSqliteTemplate());
  copyFileSync(template, file);
}

async function buildSqliteTemplate(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-template-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'template.db');
  const db = await openDatabase(`sqlite:${file}`);
  try {
    await migrateToLatest(db);
  } finally {
    await db.close();
  }
  // Closing the last connection checkpoints the write-ahead log into the file and removes it.
  if (existsSync(`${file}-wal`)) throw new Error(`the template database ${file} kept its write-ahead log`);
  return file;
}

const TOKEN = `mensajero_template_${randomBytes(6).toString('hex')}`;
let pgTemplate: Promise<string | null> | undefined;

/**
 * Creates PostgreSQL schema `schema` as a migrated copy. False when
 * `pg_dump` is missing or refuses the server: the caller migrates then.
 */
export async function clonePgTemplate(schema: string): Promise<boolean> {
  const dump = await (pgTemplate ??= buildPgTemplate());
  if (dump === null) return false;
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    // The dump names every object with its schema: the token is unique, so replacing it renames the schema only.
    await client.query(`BEGIN;\n${dump.split(TOKEN).join(schema)}\nCOMMIT;`);
  } finally {
    await client.end();
  }
  return true;
}

async function buildPgTemplate(): Promise<string | null> {
  const url = process.env.TEST_DATABASE_URL!;
  const db = await openDatabase(url, { pgSchema: TOKEN });
  try {
    await migrateToLatest(db);
  } finally {
    await db.close();
  }
  try {
    const { stdout } = await promisify(execFile)(
      'pg_dump',
      [`--dbname=${url}`, `--schema=${TOKEN}`, '--no-owner', '--no-privileges', '--inserts'],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    // psql's meta-commands (\restrict, \unrestrict) are not SQL.
    return stdout
      .split('\n')
      .filter((line) => !line.startsWith('\\'))
      .join('\n');
  } catch {
    return null;
  } finally {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${TOKEN} CASCADE`);
    await client.end();
  }
}
