import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Migrator, sql, type Kysely } from 'kysely';
import { describeEngines, dropSchema } from '../../../test/helpers/harness.js';
import { openDatabase, type Db } from '../engine.js';
import { migrations } from './index.js';

/** Receipts waiting when the table is renamed still wait under the new name; new ones continue its ids. */
describeEngines('migration 0031: smpp_receipts becomes carrier_receipts', (engine) => {
  const schema = `m_${randomBytes(6).toString('hex')}`;
  let db: Db;
  let migrator: Migrator;
  beforeAll(async () => {
    db = await openDatabase(engine === 'postgres' ? process.env.TEST_DATABASE_URL! : 'sqlite:', { pgSchema: schema });
    const migrationTableSchema = engine === 'postgres' ? schema : undefined;
    const provider = { getMigrations: async () => migrations };
    migrator = new Migrator({ db: db.kysely, provider, migrationTableSchema });
  });
  afterAll(async () => {
    await db.close();
    if (engine === 'postgres') await dropSchema(schema);
  });

  const any = () => db.kysely as unknown as Kysely<any>;
  const waiting = { carrier: 'smsc', carrier_id: 'ab12', code: 0, at: 1, read: 0 };

  it('keeps waiting receipts across the rename, and back', async () => {
    expect((await migrator.migrateTo('0030_counted_rejections')).error).toBeUndefined();
    await any().insertInto('smpp_receipts').values(waiting).execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    await db.kysely
      .insertInto('carrier_receipts')
      .values({ ...waiting, carrier_id: 'cd34' })
      .execute();
    const rows = await db.kysely.selectFrom('carrier_receipts').select(['id', 'carrier_id']).orderBy('id').execute();
    expect(rows.map((r) => [Number(r.id), r.carrier_id])).toEqual([
      [1, 'ab12'],
      [2, 'cd34'],
    ]);
    const indexes =
      engine === 'postgres'
        ? sql<{ n: string }>`select indexname as n from pg_indexes where schemaname = ${schema}
          and tablename = 'carrier_receipts'`
        : sql<{
            n: string;
          }>`select name as n from sqlite_master where type = 'index' and tbl_name = 'carrier_receipts'`;
    expect((await indexes.execute(db.kysely)).rows.map((r) => r.n).filter((n) => n.includes('smpp'))).toEqual([]);
    expect((await migrator.migrateTo('0030_counted_rejections')).error).toBeUndefined();
    const back = await any().selectFrom('smpp_receipts').select('carrier_id').orderBy('id').execute();
    expect(back.map((r) => r.carrier_id)).toEqual(['ab12', 'cd34']);
  });
});
