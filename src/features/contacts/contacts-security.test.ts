import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactCalls } from '../../../test/helpers/contacts.js';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';

/** One account's key reaches nothing of another account's lists. */
describeEngines('contacts security', (engine) => {
  let h: Harness;
  let a: TestAccount;
  let b: TestAccount;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    a = await h.createAccount();
    b = await h.createAccount();
  });
  afterAll(() => h.close());
  const { newList, add, entries } = contactCalls(
    () => h,
    () => a,
  );

  describe('account isolation', () => {
    it("gives another account's key no way to read, change, duplicate into or delete a list and its contacts", async () => {
      const list = await newList(a.apikey);
      const other = await newList(b.apikey);
      const id = (await add({ list_key: list, number: '5512345678', name: 'Ana' })).body.callback.id;
      const attempts: Array<[string, Record<string, unknown>, string]> = [
        ['/contacts/add', { list_key: list, number: '5512345678', name: 'Mallory' }, 'contact_07'],
        ['/contacts/add', { list_key: list, number: '5599999999' }, 'contact_07'],
        ['/contacts/update', { list_key: list, number: '5512345678', name: 'Mallory' }, 'contact_07'],
        ['/contacts/delete', { list_key: list, number: '5512345678' }, 'contact_07'],
        ['/contacts/duplicate', { current_list_key: list, new_list_key: other, contact_id: id }, 'contact_07'],
        ['/contacts/duplicate', { current_list_key: other, new_list_key: list, contact_id: id }, 'contact_07'],
        ['/agendas/get_contacts', { list_key: list }, 'contact_07'],
        ['/agendas/change_name', { list_key: list, agenda_name: 'mine now' }, 'contact_07'],
        ['/agendas/delete', { list_key: list }, 'contact_07'],
        ['/contacts/polling/created', { list_key: list }, 'contact_07'],
      ];
      for (const [path, body, code] of attempts) {
        const r = await h.post(path, body, b.apikey);
        expect({ path, status: r.status, code: r.body.code }).toEqual({ path, status: 400, code });
      }
      // b's own list cannot reach a's contact by id either.
      const own = await h.post(
        '/contacts/duplicate',
        { current_list_key: other, new_list_key: other, contact_id: id },
        b.apikey,
      );
      expect(own.body.code).toBe('contact_09');
      expect((await h.post('/agendas/get', {}, b.apikey)).body.result.map((l: any) => l.list_key)).not.toContain(list);
      expect(
        (await h.get(`/contactlist/find?query=list`, b.apikey)).body.result.map((l: any) => l.list_key),
      ).not.toContain(list);
      expect(
        (await h.post('/contacts/polling/created', {}, b.apikey)).body.result.map((c: any) => c.contact.id),
      ).not.toContain(id);
      expect(await entries(list)).toMatchObject([{ contact_id: id, contact_name: 'Ana' }]);
      expect(await entries(other, b.apikey)).toEqual([]);
    });
  });
});
