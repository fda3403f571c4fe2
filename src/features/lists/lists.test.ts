import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';
import { listCalls } from '../../../test/helpers/lists.js';
import { createList } from '../contacts/store.js';

/** Contact lists: creating, listing, renaming, reading and deleting. Refusals, races, search: lists-*.test.ts. */
describeEngines('contact lists', (engine) => {
  let h: Harness;
  let a: TestAccount;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    a = await h.createAccount();
  });
  afterAll(() => h.close());

  const { addList, newList, fillList } = listCalls(
    () => h,
    () => a,
  );

  let seq = 0;

  describe('POST /agendas/add', () => {
    it('creates a list with an unguessable list_key and the labels of its custom fields', async () => {
      const r = await addList({
        agenda_name: 'Clientes VIP',
        agenda_description: 'Los mejores',
        custom_field_1: 'Ciudad',
        custom_field_4: 'Plan',
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ success: true, message: 'phoneBookSavedSuccess', status: 200, code: 'agenda_01' });
      expect(r.body.list_key).toMatch(/^[A-Za-z0-9_-]{22}$/);
      const got = (await h.post('/agendas/get', {}, a.apikey)).body.result.find(
        (l: any) => l.list_key === r.body.list_key,
      );
      expect(got).toMatchObject({
        agenda_name: 'Clientes VIP',
        agenda_description: 'Los mejores',
        custom_field_1: 'Ciudad',
        custom_field_2: '',
        custom_field_4: 'Plan',
        linked_tool: '',
      });
      expect(got.agenda_creation_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    });

    it('accepts form bodies', async () => {
      const r = await h.request('POST', '/agendas/add', { apikey: a.apikey, form: { agenda_name: `form ${++seq}` } });
      expect(r.body.code).toBe('agenda_01');
    });

    it('lets a wallet or loyalty list share a name with a list of the account', async () => {
      const b = await h.createAccount();
      await newList('Lealtad', b.apikey);
      const program = await createList(h.ctx.db.kysely, { accountId: b.id, name: 'Lealtad', linkedTool: 'loyalty' });
      const all = (await h.post('/agendas/get', {}, b.apikey)).body.result;
      expect(all.map((l: any) => [l.agenda_name, l.linked_tool])).toEqual([
        ['Lealtad', ''],
        ['Lealtad', 'loyalty'],
      ]);
      expect(all[1].list_key).toBe(program.list_key);
    });
  });

  describe('POST /agendas/get', () => {
    it('returns every list of the account ordered by name, ignoring case', async () => {
      const b = await h.createAccount();
      for (const name of ['gamma', 'Beta', 'alpha', 'Delta']) await newList(name, b.apikey);
      const r = await h.post('/agendas/get', {}, b.apikey);
      expect(r.body).toMatchObject({ success: true, status: 200, code: 'agendas_01' });
      expect(r.body.result.map((l: any) => l.agenda_name)).toEqual(['alpha', 'Beta', 'Delta', 'gamma']);
      const empty = await h.createAccount();
      expect((await h.post('/agendas/get', {}, empty.apikey)).body.result).toEqual([]);
    });
  });

  describe('POST /agendas/change_name', () => {
    it('renames a list, keeping names unique', async () => {
      const key = await newList('Antes');
      await newList('Ocupado');
      const r = await h.post('/agendas/change_name', { list_key: key, agenda_name: 'Después' }, a.apikey);
      expect(r.body).toEqual({ success: true, message: 'phonebook_name_updated', status: 200, code: 'change_name_01' });
      const names = (await h.post('/agendas/get', {}, a.apikey)).body.result.map((l: any) => l.agenda_name);
      expect(names).toContain('Después');
      expect(names).not.toContain('Antes');
      expect(
        (await h.post('/agendas/change_name', { list_key: key, agenda_name: 'ocupado' }, a.apikey)).body.code,
      ).toBe('agenda_04');
      expect(
        (await h.post('/agendas/change_name', { list_key: key, agenda_name: 'DESPUÉS' }, a.apikey)).body.code,
      ).toBe('change_name_01');
      expect((await addList({ agenda_name: 'Antes' })).body.code).toBe('agenda_01');
    });
  });

  describe('POST /agendas/get_contacts', () => {
    it('lists the contacts of a list with their entries', async () => {
      const key = await newList();
      await h.post(
        '/contacts/add',
        { list_key: key, number: '5512345678', name: 'Ana', email: 'ana@example.com' },
        a.apikey,
      );
      await h.post('/contacts/add', { list_key: key, number: '5512345679' }, a.apikey);
      const r = await h.post('/agendas/get_contacts', { list_key: key }, a.apikey);
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.body).toMatchObject({ success: true, status: 200, code: 'get_contacts_01' });
      expect(r.body.result).toMatchObject([
        { contact_name: 'Ana', contact_number: '525512345678', contact_email: 'ana@example.com' },
        { contact_name: '', contact_number: '525512345679', contact_email: '' },
      ]);
      expect(r.body.result[0].contact_creation_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    });

    it('answers an empty list with an empty array', async () => {
      const r = await h.post('/agendas/get_contacts', { list_key: await newList() }, a.apikey);
      expect(r.body).toEqual({
        success: true,
        message: 'contacts_found',
        status: 200,
        code: 'get_contacts_01',
        result: [],
      });
    });
  });

  describe('POST /agendas/delete', () => {
    it('deletes the list and all its contacts', async () => {
      const key = await newList('Borrar');
      const keep = await newList();
      await fillList(key, a.id, 1_200);
      await h.post('/contacts/add', { list_key: keep, number: '5512345678' }, a.apikey);
      const { id } = await h.ctx.db.kysely
        .selectFrom('contact_lists')
        .select('id')
        .where('list_key', '=', key)
        .executeTakeFirstOrThrow();
      const r = await h.post('/agendas/delete', { list_key: key }, a.apikey);
      expect(r.body).toEqual({ success: true, message: 'phonebook_deleted', status: 200, code: 'delete_agenda_01' });
      expect((await h.post('/agendas/get_contacts', { list_key: key }, a.apikey)).body.code).toBe('contact_07');
      expect(await h.ctx.db.kysely.selectFrom('contacts').select('id').where('list_id', '=', id).execute()).toEqual([]);
      expect((await h.post('/agendas/get_contacts', { list_key: keep }, a.apikey)).body.result).toHaveLength(1);
      expect((await addList({ agenda_name: 'Borrar' })).body.code).toBe('agenda_01');
    });
  });

  it('shows every contacts and lists route in the OpenAPI document', async () => {
    const doc = (await h.get('/openapi.json')).body;
    for (const path of [
      '/agendas/add',
      '/agendas/get',
      '/agendas/change_name',
      '/agendas/get_contacts',
      '/agendas/delete',
      '/contacts/add',
      '/contacts/update',
      '/contacts/delete',
      '/contacts/duplicate',
      '/contacts/polling/{action}',
    ]) {
      expect(doc.paths[path]?.post, path).toBeDefined();
    }
    expect(doc.paths['/contactlist/find']?.get).toBeDefined();
    expect(doc.paths['/contactlist/find'].get.parameters.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(['query', 'page', 'limit']),
    );
  });
});
