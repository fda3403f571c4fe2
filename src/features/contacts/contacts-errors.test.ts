import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactCalls } from '../../../test/helpers/contacts.js';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';

/** The spec's contacts error table: every refusal with its code, and nothing changed. */
describeEngines('contacts errors', (engine) => {
  let h: Harness;
  let a: TestAccount;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    a = await h.createAccount();
  });
  afterAll(() => h.close());
  const { newList, linkedList, add, entries } = contactCalls(
    () => h,
    () => a,
  );

  describe('error table', () => {
    const long = (n: number) => 'x'.repeat(n);
    type Case = [
      code: string,
      condition: string,
      request: (ctx: { list: string; linked: string; contactId: number }) => [string, Record<string, unknown>],
    ];
    const cases: Case[] = [
      ['contact_01', 'list_key missing on add', () => ['/contacts/add', { number: '5512345678' }]],
      ['contact_01', 'list_key blank on update', () => ['/contacts/update', { list_key: '  ', number: '5512345678' }]],
      ['contact_01', 'list_key missing on delete', () => ['/contacts/delete', { number: '5512345678' }]],
      [
        'contact_01',
        'current_list_key missing on duplicate',
        (c) => ['/contacts/duplicate', { new_list_key: c.list, contact_id: c.contactId }],
      ],
      [
        'contact_01',
        'new_list_key missing on duplicate',
        (c) => ['/contacts/duplicate', { current_list_key: c.list, contact_id: c.contactId }],
      ],
      ['contact_02', 'number missing on add', (c) => ['/contacts/add', { list_key: c.list }]],
      ['contact_02', 'number null on update', (c) => ['/contacts/update', { list_key: c.list, number: null }]],
      ['contact_02', 'number missing on delete', (c) => ['/contacts/delete', { list_key: c.list }]],
      ['contact_03', 'number with letters', (c) => ['/contacts/add', { list_key: c.list, number: '55abc45678' }]],
      [
        'contact_03',
        'number shorter than 10 digits',
        (c) => ['/contacts/add', { list_key: c.list, number: '551234567' }],
      ],
      ['contact_03', 'number with slashes', (c) => ['/contacts/add', { list_key: c.list, number: '55/1234/5678' }]],
      [
        'contact_03',
        '12 digits not starting with the country code',
        (c) => ['/contacts/add', { list_key: c.list, number: '125512345678' }],
      ],
      [
        'contact_03',
        'unknown country code with find_country_code 1',
        (c) => ['/contacts/add', { list_key: c.list, number: '99912345678', find_country_code: 1 }],
      ],
      [
        'contact_03',
        'country_code not digits',
        (c) => ['/contacts/add', { list_key: c.list, number: '5512345678', country_code: 'MX' }],
      ],
      ['contact_03', 'number as an object', (c) => ['/contacts/add', { list_key: c.list, number: { $gt: '' } }]],
      [
        'contact_04',
        'name of 101 characters',
        (c) => ['/contacts/add', { list_key: c.list, number: '5512345678', name: long(101) }],
      ],
      [
        'contact_05',
        'email without @',
        (c) => ['/contacts/add', { list_key: c.list, number: '5512345678', email: 'ana.example.com' }],
      ],
      [
        'contact_05',
        'email with spaces on update',
        (c) => ['/contacts/update', { list_key: c.list, number: '5512345678', email: 'ana @example.com' }],
      ],
      [
        'contact_06',
        'email of 101 characters',
        (c) => ['/contacts/add', { list_key: c.list, number: '5512345678', email: `${long(89)}@example.com` }],
      ],
      [
        'contact_07',
        'unknown list_key on add',
        () => ['/contacts/add', { list_key: 'no-such-list', number: '5512345678' }],
      ],
      [
        'contact_07',
        'hostile list_key on update',
        () => ['/contacts/update', { list_key: "x' OR '1'='1", number: '5512345678' }],
      ],
      [
        'contact_07',
        'unknown list_key on delete',
        () => ['/contacts/delete', { list_key: 'AAAAAAAAAAAAAAAAAAAAAA', number: '5512345678' }],
      ],
      [
        'contact_07',
        'unknown source list on duplicate',
        (c) => ['/contacts/duplicate', { current_list_key: 'nope', new_list_key: c.list, contact_id: c.contactId }],
      ],
      [
        'contact_07',
        'unknown target list on duplicate',
        (c) => ['/contacts/duplicate', { current_list_key: c.list, new_list_key: 'nope', contact_id: c.contactId }],
      ],
      [
        'contact_09',
        'contact absent on update',
        (c) => ['/contacts/update', { list_key: c.list, number: '5599999999' }],
      ],
      [
        'contact_09',
        'contact_id not in the source list on duplicate',
        (c) => [
          '/contacts/duplicate',
          { current_list_key: c.list, new_list_key: c.list, contact_id: c.contactId + 100000 },
        ],
      ],
      [
        'contact_10',
        'duplicate into the list it is in',
        (c) => ['/contacts/duplicate', { current_list_key: c.list, new_list_key: c.list, contact_id: c.contactId }],
      ],
      [
        'contact_16',
        'contact_id missing on duplicate',
        (c) => ['/contacts/duplicate', { current_list_key: c.list, new_list_key: c.list }],
      ],
      [
        'contact_16',
        'contact_id not a number',
        (c) => ['/contacts/duplicate', { current_list_key: c.list, new_list_key: c.list, contact_id: 'abc' }],
      ],
      [
        'contact_16',
        'contact_id beyond any id',
        (c) => ['/contacts/duplicate', { current_list_key: c.list, new_list_key: c.list, contact_id: '1e400' }],
      ],
      ['contact_17', 'add to a wallet list', (c) => ['/contacts/add', { list_key: c.linked, number: '5512345678' }]],
      [
        'contact_17',
        'update in a wallet list',
        (c) => ['/contacts/update', { list_key: c.linked, number: '5512345678' }],
      ],
      [
        'contact_17',
        'delete from a wallet list',
        (c) => ['/contacts/delete', { list_key: c.linked, number: '5512345678' }],
      ],
      [
        'contact_17',
        'duplicate into a wallet list',
        (c) => ['/contacts/duplicate', { current_list_key: c.list, new_list_key: c.linked, contact_id: c.contactId }],
      ],
      [
        'contact_19',
        'contact absent on delete',
        (c) => ['/contacts/delete', { list_key: c.list, number: '5599999999' }],
      ],
      [
        'contact_19',
        'email filter does not match on delete',
        (c) => ['/contacts/delete', { list_key: c.list, number: '5512345678', email: 'other@example.com' }],
      ],
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
});
