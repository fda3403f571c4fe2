import { expect, it } from 'vitest';
import { openDatabase } from './engine.js';

it('writes integer limits into SQLite statements instead of binding them', async () => {
  const db = await openDatabase('sqlite::memory:');
  try {
    const q = db.kysely.selectFrom('accounts').select('id').where('email', '=', 'a@example.com').limit(25).compile();
    expect(q.sql).toMatch(/limit 25$/);
    expect(q.parameters).toEqual(['a@example.com']);
    const sub = db.kysely
      .selectFrom('jobs')
      .select('id')
      .where('id', 'in', db.kysely.selectFrom('jobs').select('id').limit(4))
      .compile();
    expect(sub.sql).toContain('limit 4');
    expect(sub.parameters).toEqual([]);
  } finally {
    await db.close();
  }
});

it('reaches a limit inside the WHERE of an update, and leaves queries without one as built', async () => {
  const db = await openDatabase('sqlite::memory:');
  try {
    const claim = db.kysely
      .updateTable('jobs')
      .set({ locked_by: 'w' })
      .where('id', 'in', (eb) => eb.selectFrom('jobs').select('id').where('kind', '=', 'k').limit(7))
      .compile();
    expect(claim.sql).toContain('limit 7');
    expect(claim.parameters).toEqual(['w', 'k']);
    const plain = db.kysely.selectFrom('accounts').select('id').where('id', 'in', [1, 2, 3]).compile();
    expect(plain.parameters).toEqual([1, 2, 3]);
  } finally {
    await db.close();
  }
});
