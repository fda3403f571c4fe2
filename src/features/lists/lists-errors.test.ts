import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';
import { listCalls } from '../../../test/helpers/lists.js';
import { createList } from '../contacts/store.js';

/** Contact lists: what each endpoint refuses, and the lists a wallet or loyalty program owns. */
describeEngines('contact lists', (engine) => {
  let h: Harness;
  let a: TestAccount;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    a = await h.createAccount();
  });
  afterAll(() => h.close());

  const { addList, newList } = listCalls(
    () => h,
    () => a,
  );

  describe('POST /agendas/add', () => {
    it.each([
      ['agenda_02', 'name missing', {}],
      ['agenda_02', 'name blank', { agenda_name: '   ' }],
      ['agenda_02', 'name an object', { agenda_name: { a: 1 } }],
      ['agenda_03', 'name of 101 characters', { agenda_name: 'x'.repeat(101) }],
      ['agenda_05', 'description of 256 characters', { agenda_name: 'desc', agenda_description: 'x'.repeat(256) }],
      ['agenda_05', 'label of 101 characters', { agenda_name: 'label', custom_field_3: 'x'.repeat(101) }],
    ])('refuses with %s: %s', async (code, _why, body) => {
      const r = await addList(body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, status: 400, code });
    });

    it('refuses a name the account already uses (agenda_04), whatever its case; another account may use it', async () => {
      await newList('Proveedores');
      for (const name of ['Proveedores', 'PROVEEDORES', ' proveedores '])
        expect((await addList({ agenda_name: name })).body.code).toBe('agenda_04');
      const other = await h.createAccount();
      expect((await addList({ agenda_name: 'Proveedores' }, other.apikey)).body.code).toBe('agenda_01');
    });
  });

  describe('POST /agendas/change_name', () => {
    it.each([
      ['contact_01', 'list_key missing', () => ({ agenda_name: 'x' })],
      ['contact_07', 'unknown list', () => ({ list_key: 'nope', agenda_name: 'x' })],
      ['agenda_02', 'name missing', (k: string) => ({ list_key: k })],
      ['agenda_03', 'name too long', (k: string) => ({ list_key: k, agenda_name: 'x'.repeat(101) })],
    ])('refuses with %s: %s', async (code, _why, body) => {
      const key = await newList();
      const r = await h.post('/agendas/change_name', body(key), a.apikey);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(code);
    });
  });

  describe('lists linked to a tool', () => {
    it.each(['wallet', 'loyalty'])('a %s list refuses renaming and deletion with contact_17', async (tool) => {
      const list = await createList(h.ctx.db.kysely, { accountId: a.id, name: `${tool} program`, linkedTool: tool });
      for (const [path, body] of [
        ['/agendas/change_name', { list_key: list.list_key, agenda_name: 'mine' }],
        ['/agendas/delete', { list_key: list.list_key }],
        ['/contacts/add', { list_key: list.list_key, number: '5512345678' }],
      ] as const) {
        const r = await h.post(path, body, a.apikey);
        expect({ path, status: r.status, code: r.body.code }).toEqual({ path, status: 400, code: 'contact_17' });
      }
      expect((await h.post('/agendas/get_contacts', { list_key: list.list_key }, a.apikey)).body.code).toBe(
        'get_contacts_01',
      );
    });
  });

  describe('POST /agendas/get_contacts', () => {
    it.each([
      ['contact_01', 'list_key missing', {}],
      ['contact_01', 'list_key not text', { list_key: ['a', 'b'] }],
      ['contact_07', 'unknown list', { list_key: 'nope' }],
    ])('refuses with %s: %s', async (code, _why, body) => {
      const r = await h.post('/agendas/get_contacts', body, a.apikey);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(code);
    });
  });

  describe('POST /agendas/delete', () => {
    it.each([
      ['contact_01', {}],
      ['contact_07', { list_key: 'nope' }],
    ])('refuses with %s', async (code, body) => {
      const r = await h.post('/agendas/delete', body, a.apikey);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(code);
    });
  });
});
