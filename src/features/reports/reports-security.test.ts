import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { around, tools } from './testing.js';

/** An account sees only its own messages and campaigns; without a valid key nothing at all. */
describeEngines('reports account isolation', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    // Two rows per page, so every multi-row test crosses page boundaries.
    h = await startHarness(engine, { worker: false, env: { REPORTS_PAGE_ROWS: '2', REPORTS_PER_MINUTE: '1000' } });
  });
  afterAll(() => h.close());
  const { submit, generate } = tools(() => h);

  it('never shows another account its messages', async () => {
    const a = await h.createAccount(100);
    const b = await h.createAccount(100);
    const mine = await submit(a.id, ['5510000001']);
    await submit(b.id, ['5510000001', '5510000002']);
    await submit(b.id, ['5510000003'], { sandbox: true });
    const rows = (await generate(a.apikey)).body.report as Array<Record<string, string>>;
    expect(rows.map((r) => r.reference)).toEqual([mine.references[0].reference]);
    expect((await generate(a.apikey, { ...around(), sandbox: 1 })).body.report).toEqual([]);
    expect((await generate(b.apikey)).body.report).toHaveLength(2);
  });

  it('refuses a request without a valid key', async () => {
    expect((await h.post('/reports/generate', around())).status).toBe(401);
    expect((await h.post('/reports/details', { campaign_id: 1 }, 'mns_nope')).body.code).toBe('auth_05');
  });

  it('details: another account’s campaign behaves exactly as an absent one', async () => {
    const a = await h.createAccount(100);
    const b = await h.createAccount(100);
    const theirs = await submit(b.id, ['5510000001']);
    const foreign = await h.post('/reports/details', { campaign_id: theirs.campaignId }, a.apikey);
    const absent = await h.post('/reports/details', { campaign_id: theirs.campaignId + 1_000_000 }, a.apikey);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(absent.body);
    expect(foreign.body.code).toBe('details_02');
    expect((await h.post('/reports/details', { campaign_id: theirs.campaignId }, b.apikey)).body.details.totals).toBe(
      1,
    );
  });
});
