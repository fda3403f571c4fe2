import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactCalls } from '../../../test/helpers/contacts.js';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';

/** Contacts in lists: how each field is read and stored, and the shapes of body taken. */
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
});
