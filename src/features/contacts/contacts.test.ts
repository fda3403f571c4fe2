import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactCalls } from '../../../test/helpers/contacts.js';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';

/** Contacts in lists: the spec's state table, fields and change polling. Errors, isolation and races: contacts-*.test.ts. */
describeEngines('contacts', (engine) => {
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

  describe('state table: contact in a list', () => {
    /** One line of the spec's table; run() and check() share what they create through `this`. */
    interface Row {
      trigger: string;
      condition: string;
      run(this: Row): Promise<{ status: number; body: any }>;
      code: string;
      check(this: Row, body: any): Promise<void>;
      [shared: string]: any;
    }
    const rows: Row[] = [
      {
        trigger: 'POST /contacts/add',
        condition: 'number not in list',
        code: 'contact_13',
        async run() {
          this.listKey = await newList();
          return add({
            list_key: this.listKey,
            number: '5512345678',
            name: 'Ana',
            email: 'ana@example.com',
            custom_field_1: 'vip',
            birthday_date: '1990-05-17',
          });
        },
        async check(body) {
          expect(body).toMatchObject({ success: true, message: 'contact_added', status: 200 });
          expect(body.callback).toMatchObject({
            number: '525512345678',
            country_code: '52',
            name: 'Ana',
            email: 'ana@example.com',
            custom_field_1: 'vip',
            birthday_date: '1990-05-17',
            facebook: '',
          });
          expect(typeof body.callback.id).toBe('number');
          expect(typeof body.callback.list_id).toBe('number');
          expect(await entries(this.listKey)).toHaveLength(1);
        },
      },
      {
        trigger: 'POST /contacts/add',
        condition: 'number in list',
        code: 'contact_15',
        async run() {
          this.listKey = await newList();
          this.first = (
            await add({ list_key: this.listKey, number: '5512345678', name: 'Ana', email: 'ana@example.com' })
          ).body.callback;
          return add({ list_key: this.listKey, number: '5512345678', name: 'Ana María' });
        },
        async check(body) {
          expect(body.message).toBe('contact_added');
          expect(body.callback).toMatchObject({ id: this.first.id, name: 'Ana María', email: 'ana@example.com' });
          expect(await entries(this.listKey)).toHaveLength(1);
        },
      },
      {
        trigger: 'POST /contacts/update',
        condition: 'contact exists',
        code: 'contact_15',
        async run() {
          this.listKey = await newList();
          await add({ list_key: this.listKey, number: '5512345678', name: 'Ana' });
          return h.post(
            '/contacts/update',
            { list_key: this.listKey, number: '5512345678', email: 'new@example.com' },
            a.apikey,
          );
        },
        async check(body) {
          expect(body.callback).toMatchObject({ number: '525512345678', name: 'Ana', email: 'new@example.com' });
          expect((await entries(this.listKey))[0].contact_email).toBe('new@example.com');
        },
      },
      {
        trigger: 'POST /contacts/update',
        condition: 'contact absent',
        code: 'contact_09',
        async run() {
          this.listKey = await newList();
          return h.post(
            '/contacts/update',
            { list_key: this.listKey, number: '5512345678', email: 'new@example.com' },
            a.apikey,
          );
        },
        async check(body) {
          expect(body).toMatchObject({ success: false, status: 400, exist: false });
          expect(await entries(this.listKey)).toHaveLength(0);
        },
      },
      {
        trigger: 'POST /contacts/delete',
        condition: 'contact exists',
        code: 'contact_12',
        async run() {
          this.listKey = await newList();
          await add({ list_key: this.listKey, number: '5512345678' });
          await add({ list_key: this.listKey, number: '5512345679' });
          return h.post('/contacts/delete', { list_key: this.listKey, number: '5512345678' }, a.apikey);
        },
        async check(body) {
          expect(body).toEqual({ success: true, message: 'contact_deleted', status: 200, code: 'contact_12' });
          expect((await entries(this.listKey)).map((e) => e.contact_number)).toEqual(['525512345679']);
        },
      },
      {
        trigger: 'POST /contacts/duplicate',
        condition: 'not in target list',
        code: 'contact_13',
        async run() {
          this.from = await newList();
          this.to = await newList();
          this.source = (
            await add({ list_key: this.from, number: '5512345678', name: 'Ana', custom_field_2: 'x' })
          ).body.callback;
          return h.post(
            '/contacts/duplicate',
            { current_list_key: this.from, new_list_key: this.to, contact_id: String(this.source.id) },
            a.apikey,
          );
        },
        async check(body) {
          expect(body.message).toBe('contact_added');
          expect(body.callback).toMatchObject({ number: '525512345678', name: 'Ana', custom_field_2: 'x' });
          expect(body.callback.id).not.toBe(this.source.id);
          expect(body.callback.list_id).not.toBe(this.source.list_id);
          expect(await entries(this.from)).toHaveLength(1);
          expect(await entries(this.to)).toHaveLength(1);
        },
      },
      {
        trigger: 'POST /contacts/duplicate',
        condition: 'already in target list',
        code: 'contact_10',
        async run() {
          this.from = await newList();
          this.to = await newList();
          const source = (await add({ list_key: this.from, number: '5512345678', name: 'Ana' })).body.callback;
          await add({ list_key: this.to, number: '5512345678', name: 'Other' });
          return h.post(
            '/contacts/duplicate',
            { current_list_key: this.from, new_list_key: this.to, contact_id: source.id },
            a.apikey,
          );
        },
        async check(body) {
          expect(body).toMatchObject({ success: false, status: 400 });
          const target = await entries(this.to);
          expect(target).toHaveLength(1);
          expect(target[0].contact_name).toBe('Other');
        },
      },
    ];
    it.each(rows.map((r) => [r.trigger, r.condition, r] as const))('%s, %s', async (_t, _c, row) => {
      const reply = await row.run();
      expect(reply.body.code).toBe(row.code);
      expect(reply.status).toBe(row.code === 'contact_09' || row.code === 'contact_10' ? 400 : 200);
      await row.check(reply.body);
    });
  });

  describe('fields', () => {
    it('ignores a birthday_date in another format than YYYY-MM-DD, and keeps the previous one on update', async () => {
      const list = await newList();
      const r = await add({ list_key: list, number: '5512345678', birthday_date: '17/05/1990' });
      expect(r.body.code).toBe('contact_13');
      expect(r.body.callback.birthday_date).toBe('');
      await add({ list_key: list, number: '5512345678', birthday_date: '1990-05-17' });
      const u = await h.post(
        '/contacts/update',
        { list_key: list, number: '5512345678', birthday_date: '1990-02-30' },
        a.apikey,
      );
      expect(u.body.callback.birthday_date).toBe('1990-05-17');
      const odd = await add({ list_key: list, number: '5512345678', birthday_date: { year: 1990 } });
      expect(odd.body.code).toBe('contact_15');
    });

    it('takes the country code from the number with find_country_code 1 (libphonenumber metadata)', async () => {
      const list = await newList();
      const uk = await add({ list_key: list, number: '447911123456', find_country_code: '1' });
      expect(uk.body.callback).toMatchObject({ country_code: '44', number: '447911123456' });
      const us = await add({ list_key: list, number: 15551234567, find_country_code: 1 });
      expect(us.body.callback).toMatchObject({ country_code: '1', number: '15551234567' });
      const national = await add({ list_key: list, number: '5512345678', find_country_code: 1, country_code: '1' });
      expect(national.body.callback).toMatchObject({ country_code: '1', number: '15512345678' });
    });

    it('stores 10-digit numbers with the given country code and matches them on update and delete', async () => {
      const list = await newList();
      const r = await add({ list_key: list, number: '5512345678', country_code: '1' });
      expect(r.body.callback).toMatchObject({ country_code: '1', number: '15512345678' });
      expect(
        (await h.post('/contacts/update', { list_key: list, number: '5512345678', name: 'x' }, a.apikey)).body.code,
      ).toBe('contact_09');
      expect(
        (
          await h.post(
            '/contacts/update',
            { list_key: list, number: '15512345678', country_code: '1', name: 'x' },
            a.apikey,
          )
        ).body.code,
      ).toBe('contact_15');
      expect(
        (await h.post('/contacts/delete', { list_key: list, number: '5512345678', country_code: '1' }, a.apikey)).body
          .code,
      ).toBe('contact_12');
    });

    it('accepts form bodies', async () => {
      const list = await newList();
      const r = await h.request('POST', '/contacts/add', {
        apikey: a.apikey,
        form: { list_key: list, number: '5512345678', name: 'Form', find_country_code: '0' },
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ code: 'contact_13', callback: { name: 'Form' } });
    });

    it.each<[string, Record<string, unknown>, number]>([
      ['a NUL character in the name', { name: 'An\u0000a' }, 400],
      ['quotes and SQL in the name', { name: "Robert'); DROP TABLE contacts;--" }, 200],
      ['emoji and accents', { name: 'Añá 🎉' }, 200],
      ['a number as name', { name: 12345 }, 200],
      ['an array as name', { name: ['a'] }, 400],
      ['an object as email', { email: { a: 1 } }, 400],
      ['a huge custom field', { custom_field_1: 'x'.repeat(500_000) }, 400],
      ['a huge number', { number: '9'.repeat(100_000) }, 400],
      ['find_country_code out of range', { find_country_code: 7 }, 400],
    ])('never answers 500 to %s', async (_what, extra, status) => {
      const list = await newList();
      const r = await add({ list_key: list, number: '5512345678', ...extra });
      expect(r.status).toBe(status);
      if (status === 200) expect(r.body.callback.name).toBe(String(extra.name));
    });

    it('never answers 500 to a body that is not an object', async () => {
      for (const payload of ['[1,2]', '"text"', '42', 'null']) {
        const r = await h.request('POST', '/contacts/add', {
          apikey: a.apikey,
          body: payload,
          headers: { 'content-type': 'application/json' },
        });
        expect(r.status).toBe(400);
      }
    });
  });

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
