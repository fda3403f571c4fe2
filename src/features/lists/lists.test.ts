import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';
import { createList } from '../contacts/store.js';

describeEngines('contact lists', (engine) => {
  let h: Harness;
  let a: TestAccount;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    a = await h.createAccount();
  });
  afterAll(() => h.close());

  let seq = 0;
  const addList = (body: Record<string, unknown>, apikey = a.apikey) => h.post('/agendas/add', body, apikey);
  const newList = async (name = `list ${++seq}`, apikey = a.apikey): Promise<string> => {
    const r = await addList({ agenda_name: name }, apikey);
    expect(r.body.code).toBe('agenda_01');
    return r.body.list_key;
  };
  const fillList = async (listKey: string, accountId: number, count: number) => {
    const list = await h.ctx.db.kysely
      .selectFrom('contact_lists')
      .select('id')
      .where('list_key', '=', listKey)
      .executeTakeFirstOrThrow();
    const now = Date.now();
    for (let start = 0; start < count; start += 500) {
      const rows = Array.from({ length: Math.min(500, count - start) }, (_, i) => {
        const n = String(start + i).padStart(8, '0');
        return {
          account_id: accountId,
          list_id: list.id,
          country_code: '52',
          number: `5255${n}`,
          name: `Name ${n}`,
          email: `c${n}@example.com`,
          created_at: now,
          updated_at: now,
        };
      });
      await h.ctx.db.kysely.insertInto('contacts').values(rows).execute();
    }
  };

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

    it('creates a name once under parallel requests', async () => {
      const replies = await Promise.all(Array.from({ length: 10 }, () => addList({ agenda_name: 'Paralela' })));
      expect(replies.filter((r) => r.body.code === 'agenda_01')).toHaveLength(1);
      expect(replies.filter((r) => r.status === 400 && r.body.code === 'agenda_04')).toHaveLength(9);
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

    it('streams a list larger than one chunk completely, in order, as valid JSON', async () => {
      const key = await newList();
      await fillList(key, a.id, 4_501);
      const r = await h.post('/agendas/get_contacts', { list_key: key }, a.apikey);
      expect(typeof r.body).toBe('object');
      const numbers = r.body.result.map((e: any) => e.contact_number);
      expect(numbers).toHaveLength(4_501);
      expect(new Set(numbers).size).toBe(4_501);
      expect(numbers[0]).toBe('525500000000');
      expect(numbers[4_500]).toBe('525500004500');
      const ids = r.body.result.map((e: any) => e.contact_id);
      expect([...ids].sort((x: number, y: number) => x - y)).toEqual(ids);
    });

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

    it('deletes once under parallel requests', async () => {
      const key = await newList();
      await fillList(key, a.id, 50);
      const replies = await Promise.all(
        Array.from({ length: 6 }, () => h.post('/agendas/delete', { list_key: key }, a.apikey)),
      );
      expect(replies.filter((r) => r.body.code === 'delete_agenda_01')).toHaveLength(1);
      expect(replies.filter((r) => r.status === 400 && r.body.code === 'contact_07')).toHaveLength(5);
    });

    it.each([
      ['contact_01', {}],
      ['contact_07', { list_key: 'nope' }],
    ])('refuses with %s', async (code, body) => {
      const r = await h.post('/agendas/delete', body, a.apikey);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(code);
    });
  });

  describe('GET /contactlist/find', () => {
    let f: TestAccount;
    beforeAll(async () => {
      f = await h.createAccount();
      for (let i = 1; i <= 25; i++) await newList(`Zona ${String(i).padStart(2, '0')}`, f.apikey);
      await newList('Clientes 100%', f.apikey);
      await newList('Clientes 1000', f.apikey);
      await newList('mi_lista', f.apikey);
      await newList('milista', f.apikey);
    });
    const find = (qs: string) => h.get(`/contactlist/find${qs}`, f.apikey);

    it('pages with the defaults: page 1, limit 20', async () => {
      const r = await find('?query=zona');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        success: true,
        status: 200,
        code: 'contactlist_03',
        total_count: 25,
        page: 1,
        total_pages: 2,
        limit: 20,
        has_more: true,
        next_page: 2,
      });
      expect(r.body.result).toHaveLength(20);
      expect(r.body.result[0]).toMatchObject({ name: 'Zona 01' });
      expect(typeof r.body.result[0].id).toBe('string');
      expect(r.body.result[0].list_key).toMatch(/^[A-Za-z0-9_-]{22}$/);
    });

    it('answers id as the list_key, which the contact endpoints take as list_key', async () => {
      const [first] = (await find('?query=Zona%2001')).body.result;
      expect(first.id).toBe(first.list_key);
      const added = await h.request('POST', '/contacts/add', {
        apikey: f.apikey,
        form: { list_key: first.id, number: '5512345678', name: 'Ana' },
      });
      expect(added.body.code).toBe('contact_13');
      const contacts = await h.post('/agendas/get_contacts', { list_key: first.id }, f.apikey);
      expect(contacts.body.result).toMatchObject([{ contact_name: 'Ana', contact_number: '525512345678' }]);
    });

    it('answers the last page with next_page null, and a page past the end empty', async () => {
      const last = await find('?query=ZONA&page=2');
      expect(last.body).toMatchObject({
        total_count: 25,
        page: 2,
        total_pages: 2,
        limit: 20,
        has_more: false,
        next_page: null,
      });
      expect(last.body.result.map((l: any) => l.name)).toEqual(['Zona 21', 'Zona 22', 'Zona 23', 'Zona 24', 'Zona 25']);
      const past = await find('?query=zona&page=9');
      expect(past.body).toMatchObject({ result: [], total_count: 25, page: 9, has_more: false, next_page: null });
    });

    it('takes limit up to 100 and searches every list without a query', async () => {
      const r = await find('?limit=100');
      expect(r.body).toMatchObject({ total_count: 29, total_pages: 1, limit: 100, has_more: false, next_page: null });
      const small = await find('?query=zona&limit=10&page=3');
      expect(small.body).toMatchObject({ total_pages: 3, page: 3, has_more: false, next_page: null });
      expect(small.body.result).toHaveLength(5);
    });

    it('never answers 500 to hostile text in names and queries', async () => {
      const g = await h.createAccount();
      // NUL is refused with the field's code (README, "Text hygiene"), the same on both engines.
      expect((await addList({ agenda_name: 'Lista\u0000 nula' }, g.apikey)).body).toMatchObject({
        status: 400,
        code: 'agenda_02',
      });
      expect((await addList({ agenda_name: 'Lista', agenda_description: 'a\u0000b' }, g.apikey)).body).toMatchObject({
        status: 400,
        code: 'agenda_05',
      });
      expect((await addList({ agenda_name: "x'); DROP TABLE contact_lists;--" }, g.apikey)).body.code).toBe(
        'agenda_01',
      );
      expect((await h.post('/agendas/get', {}, g.apikey)).body.result.map((l: any) => l.agenda_name)).toEqual([
        "x'); DROP TABLE contact_lists;--",
      ]);
      expect((await h.get(`/contactlist/find?query=${encodeURIComponent('\u0000')}`, g.apikey)).status).toBe(400);
      for (const q of ["'", '\\', '🎉', 'ñ']) {
        const r = await h.get(`/contactlist/find?query=${encodeURIComponent(q)}`, g.apikey);
        expect(r.status).toBe(200);
      }
      expect(
        (await h.get(`/contactlist/find?query=${encodeURIComponent("'); drop")}`, g.apikey)).body.total_count,
      ).toBe(1);
    });

    it('treats % and _ in the query as text', async () => {
      expect((await find(`?query=${encodeURIComponent('100%')}`)).body.result.map((l: any) => l.name)).toEqual([
        'Clientes 100%',
      ]);
      expect((await find('?query=i_l')).body.result.map((l: any) => l.name)).toEqual(['mi_lista']);
    });

    it.each([
      ['contactlist_01', `?query=${'x'.repeat(101)}`],
      ['contactlist_02', '?page=0'],
      ['contactlist_02', '?page=-1'],
      ['contactlist_02', '?page=abc'],
      ['contactlist_02', '?page=1.5'],
      ['contactlist_02', '?page=99999999999999999999'],
      ['contactlist_02', '?limit=0'],
      ['contactlist_02', '?limit=101'],
      ['contactlist_02', '?limit=1&limit=2'],
    ])('answers 400 %s to %s', async (code, qs) => {
      const r = await find(qs);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, status: 400, code });
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
