import { afterEach, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/engine.js';
import { migrationStatus } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { cliEnv, runMensajero, type CliEnv } from '../helpers/cli.js';
import { describeEngines } from '../helpers/harness.js';

/**
 * Processes that start on one new database at once (`serve --workers`, a command run beside `serve`) migrate it
 * once between them: each migration is recorded once, and every process starts.
 */
describeEngines('migrations started by several processes at once', (engine) => {
  let cli: CliEnv | undefined;
  afterEach(async () => {
    await cli?.cleanup();
    cli = undefined;
  });

  it('4 processes migrating one new database all succeed, and each migration runs once', async () => {
    cli = await cliEnv(engine);
    const env = cli.env;
    const runs = await Promise.all(Array.from({ length: 4 }, () => runMensajero(['migrate'], env)));
    for (const r of runs) expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const db = await openDatabase(env.DATABASE_URL);
    try {
      const recorded = await sql<{ name: string }>`select name from kysely_migration`.execute(db.kysely);
      expect(recorded.rows.map((r) => r.name).sort()).toEqual(Object.keys(migrations).sort());
      expect(await migrationStatus(db)).toEqual({ pending: [], unknown: [] });
    } finally {
      await db.close();
    }
  });
});
