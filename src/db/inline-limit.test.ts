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
