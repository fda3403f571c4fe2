import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';
import { createList } from './store.js';

describeEngines('contacts', (engine) => {
  let h: Harness;
  let a: TestAccount;
  let b: TestAccount;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    a = await h.createAccount();
    b = await h.createAccount();
  });
  afterAll(() => h.close());

  let seq = 0;
  const newList = async (apikey = a.apikey): Promise<string> => {
    const r = await h.post('/agendas/add', { agenda_name: `list ${++seq}` }, apikey);
    expect(r.body.code).toBe('agenda_01');
    return r.body.list_key;
  };
  const linkedList = async (tool: 'wallet' | 'loyalty') => (await createList(h.ctx.db.kysely, { accountId: a.id, name: `program ${++seq}`, linkedTool: tool })).list_key;
  const add = (body: Record<string, unknown>, apikey = a.apikey) => h.post('/contacts/add', body, apikey);
  const entries = async (listKey: string, apikey = a.apikey) => {
    const r = await h.post('/agendas/get_contacts', { list_key: listKey }, apikey);
    expect(r.status).toBe(200);
    return r.body.result as Array<{ contact_id: number; contact_name: string; contact_number: string; contact_email: string }>;
  };

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
          return add({ list_key: this.listKey, number: '5512345678', name: 'Ana', email: 'ana@example.com', custom_field_1: 'vip', birthday_date: '1990-05-17' });
        },
        async check(body) {
          expect(body).toMatchObject({ success: true, message: 'contact_added', status: 200 });
          expect(body.callback).toMatchObject({ number: '525512345678', country_code: '52', name: 'Ana', email: 'ana@example.com', custom_field_1: 'vip', birthday_date: '1990-05-17', facebook: '' });
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
          this.first = (await add({ list_key: this.listKey, number: '5512345678', name: 'Ana', email: 'ana@example.com' })).body.callback;
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
          return h.post('/contacts/update', { list_key: this.listKey, number: '5512345678', email: 'new@example.com' }, a.apikey);
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
          return h.post('/contacts/update', { list_key: this.listKey, number: '5512345678', email: 'new@example.com' }, a.apikey);
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
          this.source = (await add({ list_key: this.from, number: '5512345678', name: 'Ana', custom_field_2: 'x' })).body.callback;
          return h.post('/contacts/duplicate', { current_list_key: this.from, new_list_key: this.to, contact_id: String(this.source.id) }, a.apikey);
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
          return h.post('/contacts/duplicate', { current_list_key: this.from, new_list_key: this.to, contact_id: source.id }, a.apikey);
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

  describe('error table', () => {
    const long = (n: number) => 'x'.repeat(n);
    type Case = [code: string, condition: string, request: (ctx: { list: string; linked: string; contactId: number }) => [string, Record<string, unknown>]];
    const cases: Case[] = [
      ['contact_01', 'list_key missing on add', () => ['/contacts/add', { number: '5512345678' }]],
      ['contact_01', 'list_key blank on update', () => ['/contacts/update', { list_key: '  ', number: '5512345678' }]],
      ['contact_01', 'list_key missing on delete', () => ['/contacts/delete', { number: '5512345678' }]],
      ['contact_01', 'current_list_key missing on duplicate', (c) => ['/contacts/duplicate', { new_list_key: c.list, contact_id: c.contactId }]],
      ['contact_01', 'new_list_key missing on duplicate', (c) => ['/contacts/duplicate', { current_list_key: c.list, contact_id: c.contactId }]],
      ['contact_02', 'number missing on add', (c) => ['/contacts/add', { list_key: c.list }]],
      ['contact_02', 'number null on update', (c) => ['/contacts/update', { list_key: c.list, number: null }]],
      ['contact_02', 'number missing on delete', (c) => ['/contacts/delete', { list_key: c.list }]],
      ['contact_03', 'number with letters', (c) => ['/contacts/add', { list_key: c.list, number: '55abc45678' }]],
      ['contact_03', 'number shorter than 10 digits', (c) => ['/contacts/add', { list_key: c.list, number: '551234567' }]],
      ['contact_03', 'number with slashes', (c) => ['/contacts/add', { list_key: c.list, number: '55/1234/5678' }]],
      ['contact_03', '12 digits not starting with the country code', (c) => ['/contacts/add', { list_key: c.list, number: '125512345678' }]],
      ['contact_03', 'unknown country code with find_country_code 1', (c) => ['/contacts/add', { list_key: c.list, number: '99912345678', find_country_code: 1 }]],
      ['contact_03', 'country_code not digits', (c) => ['/contacts/add', { list_key: c.list, number: '5512345678', country_code: 'MX' }]],
      ['contact_03', 'number as an object', (c) => ['/contacts/add', { list_key: c.list, number: { $gt: '' } }]],
      ['contact_04', 'name of 101 characters', (c) => ['/contacts/add', { list_key: c.list, number: '5512345678', name: long(101) }]],
      ['contact_05', 'email without @', (c) => ['/contacts/add', { list_key: c.list, number: '5512345678', email: 'ana.example.com' }]],
      ['contact_05', 'email with spaces on update', (c) => ['/contacts/update', { list_key: c.list, number: '5512345678', email: 'ana @example.com' }]],
      ['contact_06', 'email of 101 characters', (c) => ['/contacts/add', { list_key: c.list, number: '5512345678', email: `${long(89)}@example.com` }]],
      ['contact_07', 'unknown list_key on add', () => ['/contacts/add', { list_key: 'no-such-list', number: '5512345678' }]],
      ['contact_07', 'hostile list_key on update', () => ['/contacts/update', { list_key: "x' OR '1'='1", number: '5512345678' }]],
      ['contact_07', 'unknown list_key on delete', () => ['/contacts/delete', { list_key: 'AAAAAAAAAAAAAAAAAAAAAA', number: '5512345678' }]],
      ['contact_07', 'unknown source list on duplicate', (c) => ['/contacts/duplicate', { current_list_key: 'nope', new_list_key: c.list, contact_id: c.contactId }]],
      ['contact_07', 'unknown target list on duplicate', (c) => ['/contacts/duplicate', { current_list_key: c.list, new_list_key: 'nope', contact_id: c.contactId }]],
      ['contact_09', 'contact absent on update', (c) => ['/contacts/update', { list_key: c.list, number: '5599999999' }]],
      ['contact_09', 'contact_id not in the source list on duplicate', (c) => ['/contacts/duplicate', { current_list_key: c.list, new_list_key: c.list, contact_id: c.contactId + 100000 }]],
      ['contact_10', 'duplicate into the list it is in', (c) => ['/contacts/duplicate', { current_list_key: c.list, new_list_key: c.list, contact_id: c.contactId }]],
      ['contact_16', 'contact_id missing on duplicate', (c) => ['/contacts/duplicate', { current_list_key: c.list, new_list_key: c.list }]],
      ['contact_16', 'contact_id not a number', (c) => ['/contacts/duplicate', { current_list_key: c.list, new_list_key: c.list, contact_id: 'abc' }]],
      ['contact_16', 'contact_id beyond any id', (c) => ['/contacts/duplicate', { current_list_key: c.list, new_list_key: c.list, contact_id: '1e400' }]],
      ['contact_17', 'add to a wallet list', (c) => ['/contacts/add', { list_key: c.linked, number: '5512345678' }]],
      ['contact_17', 'update in a wallet list', (c) => ['/contacts/update', { list_key: c.linked, number: '5512345678' }]],
      ['contact_17', 'delete from a wallet list', (c) => ['/contacts/delete', { list_key: c.linked, number: '5512345678' }]],
      ['contact_17', 'duplicate into a wallet list', (c) => ['/contacts/duplicate', { current_list_key: c.list, new_list_key: c.linked, contact_id: c.contactId }]],
      ['contact_19', 'contact absent on delete', (c) => ['/contacts/delete', { list_key: c.list, number: '5599999999' }]],
      ['contact_19', 'email filter does not match on delete', (c) => ['/contacts/delete', { list_key: c.list, number: '5512345678', email: 'other@example.com' }]],
    ];
    let ctx: { list: string; linked: string; contactId: number };
    beforeAll(async () => {
      const list = await newList();
      const linked = await linkedList('wallet');
      const r = await add({ list_key: list, number: '5512345678', email: 'ana@example.com' });
      ctx = { list, linked, contactId: r.body.callback.id };
      // The linked list has the contact too, so contact_17 (not contact_09/19) is what refuses the change.
      await h.ctx.db.kysely.transaction().execute(async (trx) => {
        const { upsertContact, findList } = await import('./store.js');
        const l = (await findList(trx, a.id, linked))!;
        await upsertContact(trx, a.id, l.id, { country_code: '52', number: '525512345678' });
      });
    });
    it.each(cases)('%s: %s', async (code, _condition, request) => {
      const [path, body] = request(ctx);
      const r = await h.post(path, body, a.apikey);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, status: 400, code });
      if (code === 'contact_09') expect(r.body.exist).toBe(false);
    });

    it('leaves the lists unchanged after every refused request', async () => {
      expect((await entries(ctx.list)).map((e) => e.contact_number)).toEqual(['525512345678']);
      expect((await entries(ctx.linked)).map((e) => e.contact_number)).toEqual(['525512345678']);
    });
  });

  describe('fields', () => {
    it('ignores a birthday_date in another format than YYYY-MM-DD, and keeps the previous one on update', async () => {
      const list = await newList();
      const r = await add({ list_key: list, number: '5512345678', birthday_date: '17/05/1990' });
      expect(r.body.code).toBe('contact_13');
      expect(r.body.callback.birthday_date).toBe('');
      await add({ list_key: list, number: '5512345678', birthday_date: '1990-05-17' });
      const u = await h.post('/contacts/update', { list_key: list, number: '5512345678', birthday_date: '1990-02-30' }, a.apikey);
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
      expect((await h.post('/contacts/update', { list_key: list, number: '5512345678', name: 'x' }, a.apikey)).body.code).toBe('contact_09');
      expect((await h.post('/contacts/update', { list_key: list, number: '15512345678', country_code: '1', name: 'x' }, a.apikey)).body.code).toBe('contact_15');
      expect((await h.post('/contacts/delete', { list_key: list, number: '5512345678', country_code: '1' }, a.apikey)).body.code).toBe('contact_12');
    });

    it('accepts form bodies', async () => {
      const list = await newList();
      const r = await h.request('POST', '/contacts/add', { apikey: a.apikey, form: { list_key: list, number: '5512345678', name: 'Form', find_country_code: '0' } });
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
        const r = await h.request('POST', '/contacts/add', { apikey: a.apikey, body: payload, headers: { 'content-type': 'application/json' } });
        expect(r.status).toBe(400);
      }
    });
  });

  describe('concurrency', () => {
    it('creates a number once under parallel adds: one contact_13, the rest contact_15', async () => {
      const list = await newList();
      const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => add({ list_key: list, number: '5512345678', name: `n${i}` })));
      expect(replies.map((r) => r.status)).toEqual(Array(12).fill(200));
      expect(replies.filter((r) => r.body.code === 'contact_13')).toHaveLength(1);
      expect(replies.filter((r) => r.body.code === 'contact_15')).toHaveLength(11);
      expect(await entries(list)).toHaveLength(1);
    });

    it('deletes a contact once under parallel deletes', async () => {
      const list = await newList();
      await add({ list_key: list, number: '5512345678' });
      const replies = await Promise.all(Array.from({ length: 8 }, () => h.post('/contacts/delete', { list_key: list, number: '5512345678' }, a.apikey)));
      expect(replies.filter((r) => r.body.code === 'contact_12')).toHaveLength(1);
      expect(replies.filter((r) => r.body.code === 'contact_19')).toHaveLength(7);
    });

    it('copies a contact once under parallel duplicates', async () => {
      const from = await newList();
      const to = await newList();
      const id = (await add({ list_key: from, number: '5512345678' })).body.callback.id;
      const replies = await Promise.all(Array.from({ length: 8 }, () => h.post('/contacts/duplicate', { current_list_key: from, new_list_key: to, contact_id: id }, a.apikey)));
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
      const orphans = await h.ctx.db.kysely.selectFrom('contacts').select('id').where('account_id', '=', a.id).where('list_id', 'not in', h.ctx.db.kysely.selectFrom('contact_lists').select('id')).execute();
      expect(orphans).toEqual([]);
    });
  });

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
      const own = await h.post('/contacts/duplicate', { current_list_key: other, new_list_key: other, contact_id: id }, b.apikey);
      expect(own.body.code).toBe('contact_09');
      expect((await h.post('/agendas/get', {}, b.apikey)).body.result.map((l: any) => l.list_key)).not.toContain(list);
      expect((await h.get(`/contactlist/find?query=list`, b.apikey)).body.result.map((l: any) => l.list_key)).not.toContain(list);
      expect((await h.post('/contacts/polling/created', {}, b.apikey)).body.result.map((c: any) => c.contact.id)).not.toContain(id);
      expect(await entries(list)).toMatchObject([{ contact_id: id, contact_name: 'Ana' }]);
      expect(await entries(other, b.apikey)).toEqual([]);
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
      expect(created.body.result[0]).toMatchObject({ action: 'created', list_key: l2, contact: { number: '525510000003' } });
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

      const deleted = await h.request('POST', '/contacts/polling/deleted', { apikey: c.apikey, form: { list_key: l1 } });
      expect(deleted.body.result).toHaveLength(1);
      expect(deleted.body.result[0].contact).toMatchObject({ name: 'two', email: 'two@example.com', number: '525510000002' });
    });

    it('records the deletion of every contact of a deleted list', async () => {
      const d = await h.createAccount();
      const list = await newList(d.apikey);
      for (const n of ['5520000001', '5520000002', '5520000003']) await add({ list_key: list, number: n, name: `n${n}` }, d.apikey);
      expect((await h.post('/agendas/delete', { list_key: list }, d.apikey)).status).toBe(200);
      const deleted = await h.post('/contacts/polling/deleted', {}, d.apikey);
      expect(deleted.body.result.map((r: any) => r.contact.number).sort()).toEqual(['525520000001', '525520000002', '525520000003']);
      expect(deleted.body.result[0].contact).toMatchObject({ name: expect.stringMatching(/^n55/), country_code: '52', email: '' });
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
