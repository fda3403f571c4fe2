import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactCalls } from '../../../test/helpers/contacts.js';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';

/** Contacts in lists: the spec's state table. Fields, polling, errors, isolation and races: contacts-*.test.ts. */
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
});
