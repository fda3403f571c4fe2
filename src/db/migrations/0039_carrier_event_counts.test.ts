import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Migrator } from 'kysely';
import { describeEngines, dropSchema } from '../../../test/helpers/harness.js';
import { openDatabase, type Db } from '../engine.js';
import { addEventCounts } from '../../carriers/event-counts.js';
import { migrations } from './index.js';

/** The per-minute counts add up on both engines, and the migration goes down (the previous version's schema) and up again. */
describeEngines('migration 0039: carrier event counts', (engine) => {
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

  it('adds each process’s increments to the minute’s row, and goes down and up again', async () => {
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const row = { carrier: 'norte', minute: 60_000, throttled: 2, refused: 0, errors: 1 };
    await addEventCounts(db.kysely, [row]);
    await addEventCounts(db.kysely, [{ ...row, throttled: 3, refused: 1, errors: 0 }]);
    expect(await db.kysely.selectFrom('carrier_event_counts').selectAll().execute()).toMatchObject([
      { carrier: 'norte', throttled: 5, refused: 1, errors: 1 },
    ]);
    expect((await migrator.migrateTo('0036_smpp_server')).error).toBeUndefined();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await db.kysely.selectFrom('carrier_event_counts').selectAll().execute()).toEqual([]);
  });
});
