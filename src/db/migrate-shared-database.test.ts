import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openDatabase, type Db } from './engine.js';
import { migrateToLatest } from './migrate.js';
import { dropSchema } from '../../test/helpers/harness.js';

/**
 * Several Mensajero schemas (or test schemas) share one PostgreSQL database:
 * migrating ours must not fail while another one is dropped. Kysely's own
 * introspector read every schema and failed with `schema "…" does not exist`
 * when one vanished mid-query (the CLI tests' intermittent failures).
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('migrations in a shared PostgreSQL database', () => {
  const schema = `m_${randomBytes(6).toString('hex')}`;
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase(process.env.TEST_DATABASE_URL!, { pgSchema: schema });
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await db.close();
    await dropSchema(schema);
  });

  it('migrate succeeds while other schemas with tables are created and dropped', async () => {
    const churn = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await churn.connect();
    let stop = false;
    const churning = (async () => {
      for (let i = 0; !stop; i++) {
        const other = `m_${randomBytes(6).toString('hex')}`;
        const tables = Array.from(
          { length: 30 },
          (_, t) => `CREATE TABLE ${other}.t${t} (id serial primary key, a text, b text, c text);`,
        ).join('');
        await churn.query(`CREATE SCHEMA ${other}; ${tables}`);
        await churn.query(`DROP SCHEMA ${other} CASCADE`);
      }
    })();
    const failures: string[] = [];
    try {
      for (let i = 0; i < 25; i++) {
        await migrateToLatest(db).catch((err: Error) => failures.push(err.message));
      }
    } finally {
      stop = true;
      await churning;
      await churn.end();
    }
    expect(failures).toEqual([]);
    expect((await db.kysely.introspection.getTables()).map((t) => t.schema)).toEqual(expect.arrayContaining([schema]));
  });
});
