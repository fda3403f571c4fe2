import { expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeEngines } from '../../../test/helpers/harness.js';
import { migrationSandbox } from '../../../test/helpers/migrations.js';

/** PostgreSQL leaves room on the pages of messages and jobs for HOT updates; SQLite has nothing to change. */
describeEngines('migration 0040: room for HOT status updates', (engine) => {
  const sandbox = migrationSandbox(engine);

  const fillfactors = async () => {
    if (engine === 'sqlite') return {};
    const { rows } = await sql<{ relname: string; reloptions: string[] | null }>`
      select c.relname, c.reloptions from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${sandbox.schema} and c.relname in ('messages', 'jobs')`.execute(sandbox.db.kysely);
    return Object.fromEntries(rows.map((r) => [r.relname, r.reloptions ?? []]));
  };

  it('sets the fillfactor of messages and jobs, and resets it on the way down', async () => {
    expect((await sandbox.migrator.migrateToLatest()).error).toBeUndefined();
    if (engine === 'postgres')
      expect(await fillfactors()).toEqual({ messages: ['fillfactor=80'], jobs: ['fillfactor=70'] });
    expect((await sandbox.migrator.migrateTo('0036_smpp_server')).error).toBeUndefined();
    if (engine === 'postgres') expect(await fillfactors()).toEqual({ messages: [], jobs: [] });
    expect((await sandbox.migrator.migrateToLatest()).error).toBeUndefined();
  });
});
