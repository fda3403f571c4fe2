import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { around, tools } from './testing.js';

/** REPORTS_PER_MINUTE under parallel requests, in one process and across processes sharing Redis. */
describeEngines('reports request limit', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { REPORTS_PER_MINUTE: '3', SIMULATOR_DLR_DELAY_MS: '10' } });
  });
  afterAll(() => h.close());
  const { generate } = tools(() => h);

  it('limits each account to REPORTS_PER_MINUTE requests: report_05 with 429 and Retry-After, even in parallel', async () => {
    const a = await h.createAccount(0);
    const other = await h.createAccount(0);
    const replies = await Promise.all(Array.from({ length: 7 }, () => generate(a.apikey)));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(3);
    const limited = replies.filter((r) => r.status === 429);
    expect(limited).toHaveLength(4);
    for (const r of limited) {
      expect(r.body).toEqual({ success: false, message: expect.any(String), status: 429, code: 'report_05' });
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
    expect((await generate(other.apikey)).status).toBe(200);
    // Details are not limited.
    expect((await h.post('/reports/details', { campaign_id: 1 }, a.apikey)).status).not.toBe(429);
  });

  it('does not count refused requests against the limit', async () => {
    const a = await h.createAccount(0);
    for (let i = 0; i < 5; i++) expect((await generate(a.apikey, { start_date: 'nope' })).body.code).toBe('report_01');
    expect((await generate(a.apikey, { start_date: '2026-02-02', end_date: '2026-02-01' })).body.code).toBe(
      'report_03',
    );
    const replies = await Promise.all(Array.from({ length: 3 }, () => generate(a.apikey)));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await generate(a.apikey)).body.code).toBe('report_05');
  });
});

describeEngines('reports limit shared through Redis', (engine) => {
  const redisUrl = process.env.TEST_REDIS_URL;
  let a: Harness;
  let b: Harness;
  beforeAll(async () => {
    if (!redisUrl) return;
    const opts = {
      worker: false,
      env: {
        RATE_LIMIT_STORE: 'redis',
        REDIS_URL: redisUrl,
        REPORTS_PER_MINUTE: '3',
        RATE_LIMIT_KEY_PREFIX: `test-reports-${engine}-${Date.now()}`,
      },
    };
    a = await startHarness(engine, opts);
    b = await startHarness(engine, opts);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it.runIf(Boolean(redisUrl))('counts report requests of one account across processes', async () => {
    // Separate databases: give the account the same id in both.
    const acctA = await a.createAccount(0, 'shared@example.com');
    const acctB = await b.createAccount(0, 'shared@example.com');
    expect(acctA.id).toBe(acctB.id);
    const replies = await Promise.all([
      ...Array.from({ length: 3 }, () => a.post('/reports/generate', around(), acctA.apikey)),
      ...Array.from({ length: 3 }, () => b.post('/reports/generate', around(), acctB.apikey)),
    ]);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(3);
    expect(replies.filter((r) => r.status === 429).map((r) => r.body.code)).toEqual([
      'report_05',
      'report_05',
      'report_05',
    ]);
  });
});
