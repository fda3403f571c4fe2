import { expect, it } from 'vitest';
import { describeEngines } from '../../../test/helpers/harness.js';
import { migrationSandbox } from '../../../test/helpers/migrations.js';
import { addEventCounts } from '../../carriers/event-counts.js';

/** The per-minute counts add up on both engines, and the migration goes down (the previous version's schema) and up again. */
describeEngines('migration 0039: carrier event counts', (engine) => {
  const sandbox = migrationSandbox(engine);

  it('adds each process’s increments to the minute’s row, and goes down and up again', async () => {
    expect((await sandbox.migrator.migrateToLatest()).error).toBeUndefined();
    const row = { carrier: 'norte', minute: 60_000, throttled: 2, refused: 0, errors: 1 };
    await addEventCounts(sandbox.db.kysely, [row]);
    await addEventCounts(sandbox.db.kysely, [{ ...row, throttled: 3, refused: 1, errors: 0 }]);
    expect(await sandbox.db.kysely.selectFrom('carrier_event_counts').selectAll().execute()).toMatchObject([
      { carrier: 'norte', throttled: 5, refused: 1, errors: 1 },
    ]);
    expect((await sandbox.migrator.migrateTo('0036_smpp_server')).error).toBeUndefined();
    expect((await sandbox.migrator.migrateToLatest()).error).toBeUndefined();
    expect(await sandbox.db.kysely.selectFrom('carrier_event_counts').selectAll().execute()).toEqual([]);
  });
});
