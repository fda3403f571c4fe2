import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { optoutTools, panelOptouts } from '../../../test/helpers/optouts.js';

const LIMIT = 250;
const numbersFrom = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `55${String(from + i)}`).join(',');

/** A family's list is bounded (OPTOUT_LIST_LIMIT), and its pages are read by page or after a number, however deep. */
describeEngines('opt-out list size and pages', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { OPTOUT_LIST_LIMIT: String(LIMIT) } });
  });
  afterAll(() => h.close());
  const { optOut, list } = optoutTools(() => h);

  it('refuses, writing nothing, numbers that would take the list past its limit; listed ones do not count', async () => {
    const a = await h.createAccount();
    expect((await optOut(a.apikey, numbersFrom(60_000_000, 200))).body.added).toBe(200);
    const over = await optOut(a.apikey, numbersFrom(60_000_200, 51));
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ code: 'optout_09', limit: LIMIT });
    expect((await list(a.apikey, 3)).length).toBe(0);
    // 20 already listed and 50 new: exactly the limit.
    expect((await optOut(a.apikey, numbersFrom(60_000_180, 70))).body.added).toBe(50);
    expect((await optOut(a.apikey, '5560001000')).body.code).toBe('optout_09');
  });

  it('refuses a panel import that would go past the limit, writing nothing', async () => {
    const p = await panelOptouts(h);
    await optOut(p.account.apikey, numbersFrom(61_000_000, 200));
    const csv = numbersFrom(61_000_100, 151).replaceAll(',', '\n');
    const refused = await p.upload(csv);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'import_list_full' });
    expect(await list(p.account.apikey, 3)).toEqual([]);
    expect(String((await p.upload(csv.split('\n').slice(0, 150).join('\n'))).body)).toContain('"done":true');
    expect((await list(p.account.apikey, 3)).length).toBe(50);
  });

  it('reads pages after a number as by page; a page past the limit is empty; a stale cursor gets its code', async () => {
    const a = await h.createAccount();
    await optOut(a.apikey, numbersFrom(62_000_000, LIMIT));
    const byPage = [await list(a.apikey, 1), await list(a.apikey, 2), await list(a.apikey, 3)];
    expect(byPage.map((p) => p.length)).toEqual([100, 100, 50]);
    const after1 = (await h.get(`/optouts?after=${byPage[0][99].number}`, a.apikey)).body.optouts;
    expect(after1).toEqual(byPage[1]);
    const after2 = (await h.get(`/optouts?after=${byPage[1][99].number}`, a.apikey)).body.optouts;
    expect(after2).toEqual(byPage[2]);
    expect((await h.get(`/optouts?after=${byPage[2][49].number}`, a.apikey)).body.optouts).toEqual([]);
    for (const page of [4, 1_000_000]) expect(await list(a.apikey, page)).toEqual([]);
    for (const query of ['after=525599999999', 'after=12', `after=${byPage[0][0].number}&page=2`]) {
      const r = await h.get(`/optouts?${query}`, a.apikey);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('optout_10');
    }
  });
});
