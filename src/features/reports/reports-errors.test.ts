import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { tools } from './testing.js';

/** Every refusal of /reports/generate and /reports/details with its code, never a 500. */
describeEngines('reports errors', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    // Two rows per page, so every multi-row test crosses page boundaries.
    h = await startHarness(engine, { worker: false, env: { REPORTS_PAGE_ROWS: '2', REPORTS_PER_MINUTE: '1000' } });
  });
  afterAll(() => h.close());
  const { generate } = tools(() => h);

  it.each(
    [
      [{ end_date: '2026-01-01' }, 'report_01'],
      [{}, 'report_01'],
      [{ start_date: '', end_date: '2026-01-01' }, 'report_01'],
      [{ start_date: '2026-02-30', end_date: '2026-03-01' }, 'report_01'],
      [{ start_date: '2026-13-01', end_date: '2026-12-01' }, 'report_01'],
      [{ start_date: '01/02/2026', end_date: '2026-12-01' }, 'report_01'],
      [{ start_date: '2026-01-01 00:00:00', end_date: '2026-12-01' }, 'report_01'],
      [{ start_date: "2026-01-01'; DROP TABLE messages; --", end_date: '2026-12-01' }, 'report_01'],
      [{ start_date: ['2026-01-01'], end_date: '2026-12-01' }, 'report_01'],
      [{ start_date: { $gt: '' }, end_date: '2026-12-01' }, 'report_01'],
      [{ start_date: 20260101, end_date: '2026-12-01' }, 'report_01'],
      [
        { start_date: '2'.repeat(100_000), end_date: '2026-12-01', label: 'a 100,000-character start_date' },
        'report_01',
      ],
      [{ start_date: '2026-01-01' }, 'report_02'],
      [{ start_date: '2026-01-01', end_date: null }, 'report_02'],
      [{ start_date: '2026-01-01', end_date: '2026-02-29' }, 'report_02'],
      [{ start_date: '2026-01-01', end_date: true }, 'report_02'],
      [{ start_date: '2026-01-02', end_date: '2026-01-01' }, 'report_03'],
      [{ start_date: '2027-01-01', end_date: '2026-12-31' }, 'report_03'],
      [{ start_date: '2026-01-01', end_date: '2026-01-01', sandbox: 2 }, 'report_06'],
      [{ start_date: '2026-01-01', end_date: '2026-01-01', sandbox: 'yes' }, 'report_06'],
      [{ start_date: '2026-01-01', end_date: '2026-01-01', sandbox: [1] }, 'report_06'],
    ].map(([input, code]) => {
      const { label, ...body } = input as Record<string, unknown>;
      return [String(label ?? JSON.stringify(body)), code, body] as const;
    }),
  )('refuses %s with 400 %s', async (_title, code, body) => {
    const a = await h.createAccount(0);
    const r = await generate(a.apikey, body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, status: 400, code });
    expect(r.body.message).toEqual(expect.any(String));
  });

  it.each([
    [{}, 'details_03'],
    [{ campaign_id: null }, 'details_03'],
    [{ campaign_id: '' }, 'details_03'],
    [{ campaign_id: 'abc' }, 'details_03'],
    [{ campaign_id: 0 }, 'details_03'],
    [{ campaign_id: -5 }, 'details_03'],
    [{ campaign_id: 1.5 }, 'details_03'],
    [{ campaign_id: 1e20 }, 'details_03'],
    [{ campaign_id: '99999999999999999999' }, 'details_03'],
    [{ campaign_id: '1 OR 1=1' }, 'details_03'],
    [{ campaign_id: [1] }, 'details_03'],
    [{ campaign_id: { id: 1 } }, 'details_03'],
    [{ campaign_id: 1, sandbox: 3 }, 'details_04'],
    [{ campaign_id: 1, sandbox: 'x' }, 'details_04'],
  ])('details refuses %j with 400 %s', async (body, code) => {
    const a = await h.createAccount(0);
    const r = await h.post('/reports/details', body, a.apikey);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, status: 400, code });
  });
});
