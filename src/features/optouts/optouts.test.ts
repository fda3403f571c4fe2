import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { optoutTools } from '../../../test/helpers/optouts.js';
import { formatLocal } from '../../lib/time.js';

/** GET/POST/DELETE /optouts (docs/operators/opt-outs.md). */
describeEngines('GET/POST/DELETE /optouts', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());
  const { optOut, list, subAccountOf } = optoutTools(() => h);
  const remove = (key: string, body: Record<string, unknown>) => h.request('DELETE', '/optouts', { apikey: key, body });

  it('adds numbers written in several ways, lists them with source and Mexico City time, removes them', async () => {
    const a = await h.createAccount();
    const before = Date.now();
    const added = await optOut(a.apikey, ' 55 1234-0001, +525512340002,(55) 1234 0001, 2025550123', {
      country_code: '1',
    });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ success: true, message: 'optouts_added', status: 200, code: 'optout_02', added: 3 });
    expect((await optOut(a.apikey, '5512340003,5512340001', { country_code: 52 })).body.added).toBe(2);
    const entries = await list(a.apikey);
    expect(entries.map((e) => e.number)).toEqual([
      '15512340001',
      '525512340002',
      '12025550123',
      '525512340003',
      '525512340001',
    ]);
    for (const e of entries) {
      expect(e.source).toBe('api');
      expect(e.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect([formatLocal(before).slice(0, 15), formatLocal(Date.now()).slice(0, 15)]).toContain(
        e.created_at.slice(0, 15),
      );
    }
    const removed = await remove(a.apikey, { numbers: '5512340001,5512340009' });
    expect(removed.body).toEqual({
      success: true,
      message: 'optouts_removed',
      status: 200,
      code: 'optout_03',
      removed: 1,
    });
    expect((await list(a.apikey)).map((e) => e.number)).not.toContain('525512340001');
    const body = (await h.get('/optouts', a.apikey)).body;
    expect(body).toMatchObject({ success: true, message: 'optouts_found', status: 200, code: 'optout_01' });
  });

  it('pages 100 entries from page 1, [] past the last', async () => {
    const a = await h.createAccount();
    const numbers = Array.from({ length: 250 }, (_, i) => `55${String(20_000_000 + i)}`);
    expect((await optOut(a.apikey, numbers.join(','))).body.added).toBe(250);
    const [first, second, third, past] = await Promise.all([1, 2, 3, 4].map((p) => list(a.apikey, p)));
    expect(await list(a.apikey)).toEqual(first);
    expect([first.length, second.length, third.length]).toEqual([100, 100, 50]);
    expect(past).toEqual([]);
    expect([...first, ...second, ...third].map((e) => e.number)).toEqual(numbers.map((n) => `52${n}`));
    expect(await list(a.apikey, 99_999)).toEqual([]);
  });

  it('is one list per family: a sub-account sees and changes its parent’s', async () => {
    const parent = await h.createAccount();
    const sub = await subAccountOf(parent);
    const sibling = await subAccountOf(parent);
    await optOut(sub.apikey, '5512340100');
    await optOut(parent.apikey, '5512340101');
    for (const account of [parent, sub, sibling])
      expect((await list(account.apikey)).map((e) => e.number)).toEqual(['525512340100', '525512340101']);
    await remove(sibling.apikey, { numbers: '5512340100' });
    expect((await list(parent.apikey)).map((e) => e.number)).toEqual(['525512340101']);
    expect(await list((await h.createAccount()).apikey)).toEqual([]);
  });

  it('one malformed number refuses the whole request with 400 optout_05', async () => {
    const a = await h.createAccount();
    for (const numbers of [
      '5512340200,551234',
      '5512340200,55123402000',
      '5512340200,abc',
      '5512340200,+52',
      '+1234567890123456',
    ]) {
      const r = await optOut(a.apikey, numbers);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, status: 400, code: 'optout_05' });
      expect((await remove(a.apikey, { numbers })).body.code).toBe('optout_05');
    }
    expect((await optOut(a.apikey, '5512340200,551234')).body.number).toBe('551234');
    expect(await list(a.apikey)).toEqual([]);
  });

  it('answers its own codes for a missing list, a bad country code, too many numbers and a bad page', async () => {
    const a = await h.createAccount();
    const code = async (p: Promise<{ status: number; body: any }>) => {
      const r = await p;
      expect(r.status).toBe(400);
      return r.body.code;
    };
    expect(await code(h.post('/optouts', {}, a.apikey))).toBe('optout_04');
    expect(await code(optOut(a.apikey, ' , '))).toBe('optout_04');
    expect(await code(remove(a.apikey, {}))).toBe('optout_04');
    expect(await code(optOut(a.apikey, '5512340300', { country_code: '5a' }))).toBe('optout_06');
    expect(await code(optOut(a.apikey, '5512340300', { country_code: '1234' }))).toBe('optout_06');
    const many = Array.from({ length: 10_001 }, (_, i) => `55${String(30_000_000 + i)}`).join(',');
    expect(await code(optOut(a.apikey, many))).toBe('optout_07');
    expect(await code(optOut(a.apikey, '5'.repeat(300_000)))).toBe('optout_07');
    for (const page of ['0', '-1', 'x', '1.5', '2000000'])
      expect(await code(h.get(`/optouts?page=${page}`, a.apikey))).toBe('optout_08');
    expect((await h.get('/optouts')).status).toBe(401);
    expect(await list(a.apikey)).toEqual([]);
  });

  it('parallel POSTs of the same number keep one entry', async () => {
    const a = await h.createAccount();
    const sub = await subAccountOf(a);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => optOut(i % 2 ? a.apikey : sub.apikey, '5512340400')),
    );
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(replies.reduce((n, r) => n + r.body.added, 0)).toBe(1);
    const rows = await h.ctx.db.kysely.selectFrom('optouts').selectAll().where('number', '=', '525512340400').execute();
    expect(rows).toHaveLength(1);
  });

  it('is in the OpenAPI document', async () => {
    const paths = (await h.get('/openapi.json')).body.paths;
    expect(Object.keys(paths['/optouts']).sort()).toEqual(['delete', 'get', 'post']);
  });
});
