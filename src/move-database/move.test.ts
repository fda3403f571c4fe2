import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../db/engine.js';
import { migrationStatus } from '../db/migrate.js';
import { sealedColumns } from '../db/sealed.js';
import { encrypt, Secrets } from '../lib/secrets.js';
import { startHarness } from '../../test/helpers/harness.js';
import { MAIN, runMensajero } from '../../test/helpers/cli.js';
import { moveDatabase, MoveRefused } from './move.js';

/**
 * The move from SQLite to PostgreSQL, on a database with a row in every table: the service's own rows (accounts,
 * sends, receipts, events, OTP, contacts…) and, for a table those flows leave empty, a row written from its columns,
 * with text and numbers at their edges. PostgreSQL must then hold exactly the same rows, serve the moved accounts,
 * and give new rows new ids; a target with anything in it is refused, and a failed move leaves nothing behind.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('moving a SQLite database to PostgreSQL', () => {
  const schemas: string[] = [];
  let sourceFile: string;
  let apikey: string;
  let balance: number;

  const newSchema = async (): Promise<{ db: Db; url: string; schema: string }> => {
    const schema = `m_${randomBytes(6).toString('hex')}`;
    schemas.push(schema);
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    await client.query(`create schema ${schema}`);
    await client.end();
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.searchParams.set('options', `-c search_path=${schema}`);
    return { db: await openDatabase(url.toString(), { pgSchema: schema }), url: url.toString(), schema };
  };

  // The server secret goes with the data: API keys, sealed tokens and OTP codes are read with it.
  const secretOfTheData = randomBytes(32).toString('hex');
  const env = { MENSAJERO_SECRET: secretOfTheData };

  beforeAll(async () => {
    const h = await startHarness('sqlite', { env });
    const a = await h.createAccount(50);
    apikey = a.apikey;
    await h.post('/sms/send', { numbers: '5512345678,5550000006', message: 'Hola ñandú “quoted” 😀' }, a.apikey);
    await h.post('/v2/otp', { phone_number: '5512345670', country_code: '52' }, a.apikey);
    await h.post('/agendas/add_contact', { name: 'Zoë', number: '5512345671' }, a.apikey);
    await new Promise((r) => setTimeout(r, 500)); // receipts and events of the simulator
    balance = (await h.post('/credits/consult', {}, a.apikey)).body.credit;
    sourceFile = join(mkdtempSync(join(tmpdir(), 'mensajero-move-')), 'source.db');
    await sql`vacuum into ${sourceFile}`.execute(h.ctx.db.kysely); // the harness removes its files as it closes
    await h.close();
    fillEveryTable(sourceFile, secretOfTheData);
  });

  afterAll(async () => {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    for (const s of schemas) await client.query(`drop schema if exists ${s} cascade`);
    await client.end();
  });

  it('copies every table whole: same rows, counts and checksums, and the service runs on the copy', async () => {
    const { db } = await newSchema();
    try {
      const moved = await moveDatabase(sourceFile, db);
      const source = new SQLite(sourceFile, { readonly: true });
      const tables = userTables(source);
      expect(moved.map((t) => t.table).sort()).toEqual(tables);
      for (const table of tables) {
        const expected = rowsOf(source.prepare(`select * from "${table}"`).all() as Array<Record<string, unknown>>);
        expect(expected.length, `${table} has a row`).toBeGreaterThan(0);
        const { rows } = await db.kysely.executeQuery<Record<string, unknown>>({
          sql: `select * from "${table}"`,
          parameters: [],
          query: { kind: 'RawNode' } as never,
          queryId: { queryId: table },
        });
        expect(rowsOf(rows), table).toEqual(expected);
        expect(moved.find((t) => t.table === table)!.rows).toBe(expected.length);
      }
      source.close();
      expect((await migrationStatus(db)).pending).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('serves the moved accounts from PostgreSQL, and a new row gets an id after every moved one', async () => {
    const { schema } = await newSchema();
    const target = await openDatabase(process.env.TEST_DATABASE_URL!, { pgSchema: schema });
    await moveDatabase(sourceFile, target);
    await target.close();
    const h = await startHarness('postgres', { env, pgSchema: schema });
    try {
      expect((await h.post('/credits/consult', {}, apikey)).body.credit).toBe(balance);
      const before = await h.ctx.db.kysely
        .selectFrom('accounts')
        .select((e) => e.fn.max('id').as('max'))
        .executeTakeFirstOrThrow();
      const created = await h.createAccount(1);
      expect(created.id).toBeGreaterThan(Number(before.max));
    } finally {
      await h.close();
    }
  });

  it('refuses a target that is not empty, and writes nothing to it', async () => {
    const { db } = await newSchema();
    try {
      await moveDatabase(sourceFile, db);
      const count = async () =>
        (
          await db.kysely
            .selectFrom('accounts')
            .select((e) => e.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n;
      const accounts = await count();
      await expect(moveDatabase(sourceFile, db)).rejects.toBeInstanceOf(MoveRefused);
      expect(await count()).toBe(accounts);
    } finally {
      await db.close();
    }
  });

  it('moves nothing when one row cannot be copied: the target stays without a table', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mensajero-move-'));
    const poisoned = join(dir, 'poisoned.db');
    copyFileSync(sourceFile, poisoned);
    const file = new SQLite(poisoned);
    file.prepare(`update contacts set name = 'nul' || char(0) || 'byte'`).run(); // PostgreSQL text holds no NUL
    file.close();
    const { db } = await newSchema();
    try {
      await expect(moveDatabase(poisoned, db)).rejects.toThrow();
      const { rows } = await db.kysely.executeQuery<{ n: number }>({
        sql: `select count(*)::int as n from information_schema.tables where table_schema = current_schema()`,
        parameters: [],
        query: { kind: 'RawNode' } as never,
        queryId: { queryId: 'tables' },
      });
      expect(rows[0].n).toBe(0);
    } finally {
      await db.close();
    }
  });

  it('mensajero move-database prints each table, refuses a password on the command line and a full target', async () => {
    const { url, db, schema } = await newSchema();
    await db.close();
    // With the secret the data was sealed with: a command refuses a database whose sealed data it cannot open.
    const env = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: `sqlite:${sourceFile}`,
      LOG_LEVEL: 'warn',
      MENSAJERO_SECRET: secretOfTheData,
    };
    const moved = await runMensajero(['move-database', '--to', url, '--json'], env);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.json.rows).toBeGreaterThan(0);
    expect(moved.json.tables.find((t: { table: string }) => t.table === 'messages').rows).toBeGreaterThan(0);
    expect(JSON.stringify(moved.json)).not.toContain('password');
    // The move is in the target's audit log too (the log the service reads from now on).
    const target = await openDatabase(url, { pgSchema: schema });
    try {
      // Read as rows: the source's own audit row (written from the columns) holds no JSON detail.
      const entries = await target.kysely
        .selectFrom('audit_log')
        .select(['actor', 'detail'])
        .where('action', '=', 'move-database')
        .execute();
      expect(entries.map((e) => e.actor)).toEqual(['cli']);
      expect(JSON.parse(entries[0].detail)).toMatchObject({ to: url, from: `sqlite:${sourceFile}` });
    } finally {
      await target.close();
    }
    const again = await runMensajero(['move-database', '--to', url, '--json'], env);
    expect(again.code).toBe(2);
    expect(again.json.error).toMatch(/not empty/);
    const secret = new URL(url);
    secret.password = 'hunter2';
    const refused = await runMensajero(['move-database', '--to', secret.toString()], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/PGPASSWORD/);
    expect(refused.stderr).not.toContain('hunter2');
    const inQuery = new URL(url);
    inQuery.searchParams.set('password', 'hunter3');
    const refusedQuery = await runMensajero(['move-database', '--to', inQuery.toString()], env);
    expect(refusedQuery.code).toBe(2);
    expect(refusedQuery.stderr).toMatch(/PGPASSWORD/);
    expect(refusedQuery.stderr).not.toContain('hunter3');
    expect(MAIN).toBeTruthy();

    // The closing hint gives the URL to set as it was given: its user and parameters (here the schema) included.
    const other = await newSchema();
    await other.db.close();
    const human = await runMensajero(['move-database', '--to', other.url], env);
    expect(human.code, human.stderr).toBe(0);
    expect(new URL(other.url).username).not.toBe('');
    expect(human.stdout).toContain(`now set DATABASE_URL=${other.url} and start the service`);
  });
});

function userTables(source: SQLite.Database): string[] {
  return (
    source
      .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`)
      .pluck()
      .all() as string[]
  ).filter((t) => !t.startsWith('kysely_'));
}

/** Rows as sorted JSON, numbers as numbers whichever engine gave them. */
function rowsOf(rows: Array<Record<string, unknown>>): string[] {
  return rows
    .map((r) =>
      JSON.stringify(
        Object.keys(r)
          .sort()
          .map((k) => [k, typeof r[k] === 'bigint' ? Number(r[k]) : r[k]]),
      ),
    )
    .sort();
}

/**
 * A row in every table the service's flows left empty, written from the table's columns: a parent's id where a
 * column references one, else a number or a text at the edges of what the columns hold.
 */
function fillEveryTable(file: string, secret: string): void {
  const keys = new Secrets(Buffer.from(secret, 'hex'));
  const db = new SQLite(file);
  db.pragma('foreign_keys = ON');
  let n = 0;
  const fill = (table: string, seen: Set<string>) => {
    if (seen.has(table)) return;
    seen.add(table);
    const refs = db.pragma(`foreign_key_list("${table}")`) as Array<{ table: string; from: string; to: string }>;
    for (const r of refs) if (r.table !== table) fill(r.table, seen);
    if ((db.prepare(`select count(*) from "${table}"`).pluck().get() as number) > 0) return;
    const columns = db.pragma(`table_info("${table}")`) as Array<{ name: string; type: string; pk: number }>;
    const values = columns.map((c) => {
      const ref = refs.find((r) => r.from === c.name);
      if (ref) return db.prepare(`select "${ref.to}" from "${ref.table}" limit 1`).pluck().get();
      n++;
      // What the database keeps sealed is sealed with the data's secret, as the service writes it.
      const sealed = sealedColumns.find((s) => s.table === table && s.column === c.name);
      if (sealed) return encrypt(keys[sealed.key], `sealed ${n}`);
      if (/int/i.test(c.type))
        return c.pk ? 9_000 + n : [0, 1, /bigint/i.test(c.type) ? 2 ** 53 - 1 : 2 ** 31 - 1][n % 3];
      const text = n % 2 ? `ñ “${table}” 😀 '${n}'\nline` : '';
      const limit = /\((\d+)\)/.exec(c.type);
      return limit ? [...text].slice(0, Number(limit[1])).join('') : text;
    });
    db.prepare(
      `insert into "${table}" (${columns.map((c) => `"${c.name}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`,
    ).run(...values);
  };
  const seen = new Set<string>();
  for (const t of userTables(db)) fill(t, seen);
  db.close();
}
