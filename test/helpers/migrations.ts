import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { Migrator } from 'kysely';
import { openDatabase, type Db } from '../../src/db/engine.js';
import { migrations } from '../../src/db/migrations/index.js';
import { dropSchema, type EngineName } from './harness.js';

/**
 * For the test of one migration: an empty database (on PostgreSQL a schema of
 * its own, `schema`, dropped afterwards) and a migrator over every migration, opened
 * before the suite's tests and closed after them.
 */
export function migrationSandbox(engine: EngineName): { db: Db; migrator: Migrator; schema: string } {
  const schema = `m_${randomBytes(6).toString('hex')}`;
  const sandbox = { schema } as { db: Db; migrator: Migrator; schema: string };
  beforeAll(async () => {
    sandbox.db = await openDatabase(engine === 'postgres' ? process.env.TEST_DATABASE_URL! : 'sqlite:', {
      pgSchema: schema,
    });
    sandbox.migrator = new Migrator({
      db: sandbox.db.kysely,
      provider: { getMigrations: async () => migrations },
      migrationTableSchema: engine === 'postgres' ? schema : undefined,
    });
  });
  afterAll(async () => {
    await sandbox.db.close();
    if (engine === 'postgres') await dropSchema(schema);
  });
  return sandbox;
}
