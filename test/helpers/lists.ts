import { expect } from 'vitest';
import type { Harness, TestAccount } from './harness.js';

/** The lists the contact-list tests make: through the API, or filled straight in the database when large. */
export function listCalls(harness: () => Harness, account: () => TestAccount) {
  let seq = 0;
  const addList = (body: Record<string, unknown>, apikey = account().apikey) =>
    harness().post('/agendas/add', body, apikey);
  const newList = async (name = `list ${++seq}`, apikey = account().apikey): Promise<string> => {
    const r = await addList({ agenda_name: name }, apikey);
    expect(r.body.code).toBe('agenda_01');
    return r.body.list_key;
  };
  const fillList = async (listKey: string, accountId: number, count: number) => {
    const db = harness().ctx.db.kysely;
    const list = await db
      .selectFrom('contact_lists')
      .select('id')
      .where('list_key', '=', listKey)
      .executeTakeFirstOrThrow();
    const now = Date.now();
    for (let start = 0; start < count; start += 500) {
      const rows = Array.from({ length: Math.min(500, count - start) }, (_, i) => {
        const n = String(start + i).padStart(8, '0');
        return {
          account_id: accountId,
          list_id: list.id,
          country_code: '52',
          number: `5255${n}`,
          name: `Name ${n}`,
          email: `c${n}@example.com`,
          created_at: now,
          updated_at: now,
        };
      });
      await db.insertInto('contacts').values(rows).execute();
    }
  };
  return { addList, newList, fillList };
}
