import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactCalls } from '../../../test/helpers/contacts.js';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';

/** Parallel adds, deletes and duplicates: each change happens once. */
describeEngines('contacts concurrency', (engine) => {
  let h: Harness;
  let a: TestAccount;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    a = await h.createAccount();
  });
  afterAll(() => h.close());
  const { newList, add, entries } = contactCalls(
    () => h,
    () => a,
  );

  describe('concurrency', () => {
    it('creates a number once under parallel adds: one contact_13, the rest contact_15', async () => {
      const list = await newList();
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, i) => add({ list_key: list, number: '5512345678', name: `n${i}` })),
      );
      expect(replies.map((r) => r.status)).toEqual(Array(12).fill(200));
      expect(replies.filter((r) => r.body.code === 'contact_13')).toHaveLength(1);
      expect(replies.filter((r) => r.body.code === 'contact_15')).toHaveLength(11);
      expect(await entries(list)).toHaveLength(1);
    });

    it('deletes a contact once under parallel deletes', async () => {
      const list = await newList();
      await add({ list_key: list, number: '5512345678' });
      const replies = await Promise.all(
        Array.from({ length: 8 }, () => h.post('/contacts/delete', { list_key: list, number: '5512345678' }, a.apikey)),
      );
      expect(replies.filter((r) => r.body.code === 'contact_12')).toHaveLength(1);
      expect(replies.filter((r) => r.body.code === 'contact_19')).toHaveLength(7);
    });

    it('copies a contact once under parallel duplicates', async () => {
      const from = await newList();
      const to = await newList();
      const id = (await add({ list_key: from, number: '5512345678' })).body.callback.id;
      const replies = await Promise.all(
        Array.from({ length: 8 }, () =>
          h.post('/contacts/duplicate', { current_list_key: from, new_list_key: to, contact_id: id }, a.apikey),
        ),
      );
      expect(replies.filter((r) => r.body.code === 'contact_13')).toHaveLength(1);
      expect(replies.filter((r) => r.body.code === 'contact_10')).toHaveLength(7);
      expect(await entries(to)).toHaveLength(1);
    });

    it('never adds a contact to a list being deleted (contact_07 or added before the delete, never a 500)', async () => {
      const list = await newList();
      const replies = await Promise.all([
        ...Array.from({ length: 6 }, (_, i) => add({ list_key: list, number: `551234567${i}` })),
        h.post('/agendas/delete', { list_key: list }, a.apikey),
        ...Array.from({ length: 6 }, (_, i) => add({ list_key: list, number: `551234568${i}` })),
      ]);
      for (const r of replies) expect([200, 400]).toContain(r.status);
      expect(replies.filter((r) => r.status === 400).every((r) => r.body.code === 'contact_07')).toBe(true);
      const orphans = await h.ctx.db.kysely
        .selectFrom('contacts')
        .select('id')
        .where('account_id', '=', a.id)
        .where('list_id', 'not in', h.ctx.db.kysely.selectFrom('contact_lists').select('id'))
        .execute();
      expect(orphans).toEqual([]);
    });
  });
});
