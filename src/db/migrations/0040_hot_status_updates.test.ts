import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Migrator, sql } from 'kysely';
import { describeEngines, dropSchema } from '../../../test/helpers/harness.js';
import { openDatabase, type Db } from '../engine.js';
import { migrations } from './index.js';

/** PostgreSQL leaves room on the pages of messages and jobs for HOT updates; SQLite has nothing to change. */
describeEngines('migration 0040: room for HOT status updates', (engine) => {
  const schema = `m_${randomBytes(6).toString('hex')}`;
  let db: Db;
  let migrator: Migrator;
  beforeAll(async () => {
    db = await openDatabase(engine === 'postgres' ? process.env.TEST_DATABASE_URL! : 'sqlite:', { pgSchema: schema });
    const migrationTableSchema = engine === 'postgres' ? schema : undefined;
    migrator = new Migrator({
      db: db.kysely,
      provider: { getMigrations: async () => migrations },
      migrationTableSchema,
    });
  });
  afterAll(async () => {
    await db.close();
    if (engine === 'postgres') await dropSchema(schema);
  });

  const fillfactors = async () => {
    if (engine === 'sqlite') return {};
    const { rows } = await sql<{ relname: string; reloptions: string[] | null }>`
      select c.relname, c.reloptions from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema} and c.relname in ('messages', 'jobs')`.execute(db.kysely);
    return Object.fromEntries(rows.map((r) => [r.relname, r.reloptions ?? []]));
  };

  it('sets the fillfactor of messages and jobs, and resets it on the way down', async () => {
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    if (engine === 'postgres')
      expect(await fillfactors()).toEqual({ messages: ['fillfactor=80'], jobs: ['fillfactor=70'] });
    expect((await migrator.migrateTo('0036_smpp_server')).error).toBeUndefined();
    if (engine === 'postgres') expect(await fillfactors()).toEqual({ messages: [], jobs: [] });
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
});
