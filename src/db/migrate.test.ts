import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KyselyPlugin } from 'kysely';
import { openDatabase, type Db } from './engine.js';
import { migrateToLatest } from './migrate.js';
import { describeEngines, dropSchema } from '../../test/helpers/harness.js';

/** The database of `db` seen through a Kysely that counts the queries run on it. */
function counting(db: Db): { db: Db; queries: () => number } {
  let n = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => (n++, args.node),
    transformResult: async (args) => args.result,
  };
  return { db: { ...db, kysely: db.kysely.withPlugin(plugin) }, queries: () => n };
}

describeEngines('migrations at start-up', (engine) => {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-migrate-'));
  const schema = `m_${randomBytes(6).toString('hex')}`;
  let db: Db;
  beforeAll(async () => {
    db =
      engine === 'sqlite'
        ? await openDatabase(`sqlite:${join(dir, 'm.db')}`)
        : await openDatabase(process.env.TEST_DATABASE_URL!, { pgSchema: schema });
  });
  afterAll(async () => {
    await db.close();
    if (engine === 'postgres') await dropSchema(schema);
    rmSync(dir, { recursive: true, force: true });
  });

  it('migrates a new database, then finds it up to date with one read', async () => {
    const first = counting(db);
    expect((await migrateToLatest(first.db)).length).toBeGreaterThan(30);
    const again = counting(db);
    expect(await migrateToLatest(again.db)).toEqual([]);
    expect(again.queries()).toBe(1);
  });

  it('still refuses a database that a newer version migrated', async () => {
    await db.kysely
      .insertInto('kysely_migration' as never)
      .values({ name: '9999_from_a_newer_version', timestamp: new Date().toISOString() } as never)
      .execute();
    try {
      await expect(migrateToLatest(db)).rejects.toThrow(/9999_from_a_newer_version/);
    } finally {
      await db.kysely
        .deleteFrom('kysely_migration' as never)
        .where('name' as never, '=', '9999_from_a_newer_version' as never)
        .execute();
    }
  });
});
