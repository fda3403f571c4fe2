import { expect, it } from 'vitest';
import { describeEngines } from '../../test/helpers/harness.js';
import { migrationSandbox } from '../../test/helpers/migrations.js';
import { openDatabase } from './engine.js';

it('binds SQLite IN lists of every length from 1 to 1,000 with a few statements only', async () => {
  const db = await openDatabase('sqlite::memory:');
  try {
    const texts = new Set<string>();
    for (let n = 1; n <= 1000; n++) {
      const ids = Array.from({ length: n }, (_, i) => i + 1);
      texts.add(db.kysely.selectFrom('jobs').select('id').where('id', 'in', ids).compile().sql);
      texts.add(db.kysely.deleteFrom('jobs').where('kind', '=', 'k').where('id', 'not in', ids).compile().sql);
    }
    // Lengths 1–8 as they are, then 16, 32, … 1,024: 15 statements for each query.
    expect(texts.size).toBe(2 * 15);
    const padded = db.kysely.selectFrom('jobs').select('id').where('id', 'in', [1, 2, 3, 4, 5, 6, 7, 8, 9]).compile();
    expect(padded.parameters).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 9, 9, 9, 9]);
  } finally {
    await db.close();
  }
});

describeEngines('IN lists of any length', (engine) => {
  const sandbox = migrationSandbox(engine);

  it('match the same rows, with IN and NOT IN, however their values are bound', async () => {
    expect((await sandbox.migrator.migrateToLatest()).error).toBeUndefined();
    const db = sandbox.db.kysely;
    const rows = Array.from({ length: 40 }, (_, i) => ({
      kind: 'k',
      payload: '{}',
      run_at: 0,
      max_attempts: 1,
      created_at: 0,
      unique_key: `u${i}`,
    }));
    const ids = (await db.insertInto('jobs').values(rows).returning('id').execute())
      .map((r) => r.id)
      .sort((a, b) => a - b);
    for (const n of [1, 8, 9, 17, 33]) {
      const some = ids.slice(0, n);
      const found = await db.selectFrom('jobs').select('id').where('id', 'in', some).orderBy('id').execute();
      expect(found.map((r) => r.id)).toEqual(some);
      const others = await db.selectFrom('jobs').select('id').where('id', 'not in', some).orderBy('id').execute();
      expect(others.map((r) => r.id)).toEqual(ids.slice(n));
    }
  });
});
