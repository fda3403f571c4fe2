import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactCalls } from '../../../test/helpers/contacts.js';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';

/** Contacts in lists: change polling (the latest additions, updates and deletions). */
describeEngines('contacts', (engine) => {
  let h: Harness;
  let a: TestAccount;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    a = await h.createAccount();
  });
  afterAll(() => h.close());
  const { newList, add } = contactCalls(
    () => h,
    () => a,
  );

  describe('change polling', () => {
    let c: TestAccount;
    beforeAll(async () => {
      c = await h.createAccount();
    });

    it('lists the latest changes of one kind, newest first, with stable change ids, filtered by list and limited', async () => {
      const l1 = await newList(c.apikey);
      const l2 = await newList(c.apikey);
      await add({ list_key: l1, number: '5510000001', name: 'one' }, c.apikey);
      await add({ list_key: l1, number: '5510000002', name: 'two' }, c.apikey);
      await add({ list_key: l2, number: '5510000003', name: 'three' }, c.apikey);
      await add({ list_key: l1, number: '5510000001', name: 'one bis' }, c.apikey);
      await h.post('/contacts/update', { list_key: l1, number: '5510000002', email: 'two@example.com' }, c.apikey);
      await h.post('/contacts/delete', { list_key: l1, number: '5510000002' }, c.apikey);

      const created = await h.post('/contacts/polling/created', {}, c.apikey);
      expect(created.status).toBe(200);
      expect(created.body).toMatchObject({ success: true, code: 'polling_01' });
      expect(created.body.result.map((r: any) => r.contact.name)).toEqual(['three', 'two', 'one']);
      expect(created.body.result[0]).toMatchObject({
        action: 'created',
        list_key: l2,
        contact: { number: '525510000003' },
      });
      expect(created.body.result[0].change_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      const ids = created.body.result.map((r: any) => r.id);
      expect(new Set(ids).size).toBe(3);

      const again = await h.post('/contacts/polling/created', { limit: 2 }, c.apikey);
      expect(again.body.result.map((r: any) => r.id)).toEqual(ids.slice(0, 2));

      const onlyL1 = await h.post('/contacts/polling/created', { list_key: l1 }, c.apikey);
      expect(onlyL1.body.result.map((r: any) => r.contact.name)).toEqual(['two', 'one']);

      const updated = await h.post('/contacts/polling/updated', {}, c.apikey);
      expect(updated.body.result.map((r: any) => [r.contact.name, r.contact.email])).toEqual([
        ['two', 'two@example.com'],
        ['one bis', ''],
      ]);

      const deleted = await h.request('POST', '/contacts/polling/deleted', {
        apikey: c.apikey,
        form: { list_key: l1 },
      });
      expect(deleted.body.result).toHaveLength(1);
      expect(deleted.body.result[0].contact).toMatchObject({
        name: 'two',
        email: 'two@example.com',
        number: '525510000002',
      });
    });

    it('records the deletion of every contact of a deleted list', async () => {
      const d = await h.createAccount();
      const list = await newList(d.apikey);
      for (const n of ['5520000001', '5520000002', '5520000003'])
        await add({ list_key: list, number: n, name: `n${n}` }, d.apikey);
      expect((await h.post('/agendas/delete', { list_key: list }, d.apikey)).status).toBe(200);
      const deleted = await h.post('/contacts/polling/deleted', {}, d.apikey);
      expect(deleted.body.result.map((r: any) => r.contact.number).sort()).toEqual([
        '525520000001',
        '525520000002',
        '525520000003',
      ]);
      expect(deleted.body.result[0].contact).toMatchObject({
        name: expect.stringMatching(/^n55/),
        country_code: '52',
        email: '',
      });
      expect(typeof deleted.body.result[0].contact.id).toBe('number');
      expect(typeof deleted.body.result[0].contact.list_id).toBe('number');
    });

    it.each([
      ['an unknown action', '/contacts/polling/merged', {}, 'polling_02'],
      ['a limit of 0', '/contacts/polling/created', { limit: 0 }, 'polling_03'],
      ['a limit over 100', '/contacts/polling/created', { limit: 101 }, 'polling_03'],
      ['a limit that is not a number', '/contacts/polling/created', { limit: 'all' }, 'polling_03'],
      ['an unknown list_key', '/contacts/polling/created', { list_key: 'nope' }, 'contact_07'],
    ])('answers 400 to %s', async (_what, path, body, code) => {
      const r = await h.post(path, body, c.apikey);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, code });
    });
  });
});
