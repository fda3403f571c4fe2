import { afterAll, beforeAll, expect, it } from 'vitest';
import { adjustCredits, debitCredits } from '../../accounts/store.js';
import { toUnits } from '../../accounts/credits.js';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';

describeEngines('credits', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, {
      extraApiRoutes(api) {
        api.post('/test/send', { config: { sendLimited: true } }, async () => ({ ok: true }));
      },
    });
  });
  afterAll(() => h.close());

  it('POST /credits/consult answers credit_01 with the balance', async () => {
    const a = await h.createAccount(100);
    expect((await h.post('/credits/consult', {}, a.apikey)).body).toEqual({
      success: true,
      message: 'available_credits',
      status: 200,
      code: 'credit_01',
      credit: 100,
    });
  });

  it('GET /credits/consult also answers the field credits', async () => {
    const a = await h.createAccount(12.5);
    const r = await h.get('/credits/consult', a.apikey);
    expect(r.body).toMatchObject({ code: 'credit_01', credit: 12.5, credits: 12.5 });
  });

  it('represents fractional credits exactly', async () => {
    const a = await h.createAccount(1);
    expect(await debitCredits(h.ctx.db.kysely, a.id, toUnits(0.3))).toEqual({ lowBalance: false });
    expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(0.7);
  });

  it('never lets parallel debits take a balance below zero', async () => {
    const a = await h.createAccount(10);
    const results = await Promise.all(
      Array.from({ length: 25 }, () =>
        h.ctx.db.kysely.transaction().execute((trx) => debitCredits(trx, a.id, toUnits(1))),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(10);
    expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(0);
    expect(await adjustCredits(h.ctx.db.kysely, a.id, toUnits(-1), { kind: 'adjustment', actor: 'test' })).toBe(false);
  });

  it('limits message-sending requests per account with 429 rate_01 and Retry-After', async () => {
    const a = await h.createAccount(1);
    const other = await h.createAccount(1);
    await h.ctx.db.kysely.updateTable('accounts').set({ rate_limit_per_sec: 3 }).where('id', '=', a.id).execute();
    const replies = await Promise.all(Array.from({ length: 5 }, () => h.post('/test/send', {}, a.apikey)));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(3);
    const limited = replies.find((r) => r.status === 429)!;
    expect(limited.body).toMatchObject({ success: false, status: 429, code: 'rate_01' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await h.post('/test/send', {}, other.apikey)).status).toBe(200);
    // Reading the balance is not a send: it is not limited.
    expect((await h.post('/credits/consult', {}, a.apikey)).status).toBe(200);
  });
});

describeEngines('rate limit shared through Redis', (engine) => {
  const redisUrl = process.env.TEST_REDIS_URL;
  // Two processes of one deployment: both count against the same per-account limit.
  let a: Harness;
  let b: Harness;
  beforeAll(async () => {
    if (!redisUrl) return;
    const opts = {
      env: {
        RATE_LIMIT_STORE: 'redis',
        REDIS_URL: redisUrl,
        RATE_LIMIT_PER_SECOND: '4',
        RATE_LIMIT_KEY_PREFIX: `test-${engine}-${Date.now()}`,
      },
      extraApiRoutes(api: import('fastify').FastifyInstance) {
        api.post('/test/send', { config: { sendLimited: true } }, async () => ({ ok: true }));
      },
    };
    a = await startHarness(engine, opts);
    b = await startHarness(engine, opts);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it.runIf(Boolean(redisUrl))('counts requests of one account across processes', async () => {
    // The two harnesses have separate databases; give the account the same id in both.
    const acctA = await a.createAccount(1, 'shared@example.com');
    const acctB = await b.createAccount(1, 'shared@example.com');
    expect(acctA.id).toBe(acctB.id);
    const replies = await Promise.all([
      ...Array.from({ length: 3 }, () => a.post('/test/send', {}, acctA.apikey)),
      ...Array.from({ length: 3 }, () => b.post('/test/send', {}, acctB.apikey)),
    ]);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(4);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(2);
  });
});

describeEngines('rate limit while Redis is unreachable', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    // Nothing listens on port 1: the service must start and limit per process.
    h = await startHarness(engine, {
      env: { RATE_LIMIT_STORE: 'redis', REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_PER_SECOND: '3' },
      extraApiRoutes(api) {
        api.post('/test/send', { config: { sendLimited: true } }, async () => ({ ok: true }));
      },
    });
  });
  afterAll(() => h.close());

  it('starts and keeps limiting with the in-memory fallback', async () => {
    const a = await h.createAccount(1);
    const replies = await Promise.all(Array.from({ length: 5 }, () => h.post('/test/send', {}, a.apikey)));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(3);
    expect(replies.filter((r) => r.status === 429).map((r) => r.body.code)).toEqual(['rate_01', 'rate_01']);
  });
});
