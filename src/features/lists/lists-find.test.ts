import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';
import { listCalls } from '../../../test/helpers/lists.js';

/** Contact lists: searching them by name, page by page (GET /contactlist/find). */
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
      // NUL is refused with the field's code (docs/api/common.md, "Text hygiene"), the same on both engines.
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
});
