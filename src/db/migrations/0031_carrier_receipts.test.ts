import { expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { describeEngines } from '../../../test/helpers/harness.js';
import { migrationSandbox } from '../../../test/helpers/migrations.js';

/** Receipts waiting when the table is renamed still wait under the new name; new ones continue its ids. */
describeEngines('migration 0031: smpp_receipts becomes carrier_receipts', (engine) => {
  const sandbox = migrationSandbox(engine);

  const any = () => sandbox.db.kysely as unknown as Kysely<any>;
  const waiting = { carrier: 'smsc', carrier_id: 'ab12', code: 0, at: 1, read: 0 };

  it('keeps waiting receipts across the rename, and back', async () => {
    expect((await sandbox.migrator.migrateTo('0030_counted_rejections')).error).toBeUndefined();
    await any().insertInto('smpp_receipts').values(waiting).execute();
    expect((await sandbox.migrator.migrateToLatest()).error).toBeUndefined();
    await sandbox.db.kysely
      .insertInto('carrier_receipts')
      .values({ ...waiting, carrier_id: 'cd34' })
      .execute();
    const rows = await sandbox.db.kysely
      .selectFrom('carrier_receipts')
      .select(['id', 'carrier_id'])
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [Number(r.id), r.carrier_id])).toEqual([
      [1, 'ab12'],
      [2, 'cd34'],
    ]);
    const indexes =
      engine === 'postgres'
        ? sql<{ n: string }>`select indexname as n from pg_indexes where schemaname = ${sandbox.schema}
          and tablename = 'carrier_receipts'`
        : sql<{
            n: string;
          }>`select name as n from sqlite_master where type = 'index' and tbl_name = 'carrier_receipts'`;
    expect((await indexes.execute(sandbox.db.kysely)).rows.map((r) => r.n).filter((n) => n.includes('smpp'))).toEqual(
      [],
    );
    expect((await sandbox.migrator.migrateTo('0030_counted_rejections')).error).toBeUndefined();
    const back = await any().selectFrom('smpp_receipts').select('carrier_id').orderBy('id').execute();
    expect(back.map((r) => r.carrier_id)).toEqual(['ab12', 'cd34']);
  });
});
