import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';
import { setPrice } from '../../messaging/pricing.js';
import { toUnits } from '../../accounts/credits.js';
import { saveSettings } from '../otp/store.js';
import { freshPhone } from '../otp/testing.js';

/** The attacks: a free sub-account escaping its parent's controls. */
describeEngines('sub-accounts inherit their parent controls', (engine) => {
  let h: Harness;
  let n = 0;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  /** A sub-account of `parent` with `credits` moved to it; its API key. */
  async function subOf(parent: TestAccount, credits = 0): Promise<string> {
    const email = `sub${++n}-${parent.id}@example.com`;
    const r = await h.post('/manager/subaccount/add', { email, password: 'secret123' }, parent.apikey);
    expect(r.body.code).toBe('subaccount_01');
    if (credits > 0)
      expect(
        (await h.post('/manager/subaccount/credits/manage', { email, type: 1, credits }, parent.apikey)).body.code,
      ).toBe('subaccount_01');
    return r.body.apikey;
  }

  it("sends at the parent's price, not the default", async () => {
    const parent = await h.createAccount(100);
    await setPrice(h.ctx.db.kysely, parent.id, 'sms', toUnits(3));
    const child = await subOf(parent, 10);
    const r = await h.post('/sms/send', { numbers: '5512345678', message: 'Hola' }, child);
    expect(r.body.code).toBe('sms_11');
    expect(r.body.credit).toBe(3);
    expect((await h.post('/credits/consult', {}, child)).body.credit).toBe(7);
  });

  it('keeps its own price when it has one', async () => {
    const parent = await h.createAccount(100);
    await setPrice(h.ctx.db.kysely, parent.id, 'sms', toUnits(3));
    const child = await subOf(parent, 10);
    const childId = (
      await h.ctx.db.kysely
        .selectFrom('accounts')
        .select('id')
        .where('parent_id', '=', parent.id)
        .executeTakeFirstOrThrow()
    ).id;
    await setPrice(h.ctx.db.kysely, childId, 'sms', toUnits(2));
    expect((await h.post('/sms/send', { numbers: '5512345678', message: 'Hola' }, child)).body.credit).toBe(2);
  });

  it("counts the sub-account's requests on the parent's rate-limit bucket", async () => {
    const parent = await h.createAccount(100);
    await h.ctx.db.kysely.updateTable('accounts').set({ rate_limit_per_sec: 3 }).where('id', '=', parent.id).execute();
    const children = [await subOf(parent, 10), await subOf(parent, 10)];
    const keys = [parent.apikey, parent.apikey, parent.apikey, ...children, ...children, ...children];
    const replies = await Promise.all(
      keys.map((k) => h.post('/sms/send', { numbers: '5512345678', message: 'Hola', sandbox: 1 }, k)),
    );
    const passed = replies.filter((r) => r.status !== 429);
    // 9 requests in the same second against one bucket of 3 (a second boundary may refill it once).
    expect(passed.length).toBeGreaterThanOrEqual(3);
    expect(passed.length).toBeLessThanOrEqual(6);
    expect(replies.filter((r) => r.status === 429).every((r) => r.body.code === 'rate_01')).toBe(true);
  });

  it("applies the parent's IP allow-list", async () => {
    const parent = await h.createAccount(100);
    const child = await subOf(parent);
    await h.ctx.db.kysely
      .updateTable('accounts')
      .set({ allow_ips: JSON.stringify(['10.0.0.0/8']) })
      .where('id', '=', parent.id)
      .execute();
    const r = await h.post('/credits/consult', {}, child);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('auth_04');
  });

  it("applies the parent's OTP country list", async () => {
    const parent = await h.createAccount(100);
    const child = await subOf(parent, 10);
    await saveSettings(h.ctx.db.kysely, parent.id, { allowed_countries: '52' }, Date.now());
    const r = await h.post('/v2/otp', { phone_number: '2025550123', country_code: '1', company: 'Acme' }, child);
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('otp_country_blocked');
    expect(
      (await h.post('/v2/otp', { phone_number: freshPhone(), country_code: '52', company: 'Acme' }, child)).status,
    ).toBe(201);
  });

  it('caps the sub-accounts of an account, also under parallel requests', async () => {
    const parent = await h.createAccount(100);
    await h.ctx.db.kysely.updateTable('accounts').set({ max_subaccounts: 2 }).where('id', '=', parent.id).execute();
    const replies = await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        h.post(
          '/manager/subaccount/add',
          { email: `cap${i}-${parent.id}@example.com`, password: 'secret123' },
          parent.apikey,
        ),
      ),
    );
    expect(replies.filter((r) => r.body.code === 'subaccount_01')).toHaveLength(2);
    const refused = replies.filter((r) => r.body.code !== 'subaccount_01');
    expect(refused.every((r) => r.status === 403 && r.body.code === 'subaccount_14')).toBe(true);
    // An archived sub-account frees its place.
    const first = replies.find((r) => r.body.code === 'subaccount_01')!;
    await h.post('/manager/subaccount/archive', { email: first.body.email }, parent.apikey);
    expect(
      (
        await h.post(
          '/manager/subaccount/add',
          { email: `cap9-${parent.id}@example.com`, password: 'secret123' },
          parent.apikey,
        )
      ).body.code,
    ).toBe('subaccount_01');
  });

  it('caps at SUBACCOUNTS_PER_ACCOUNT by default', async () => {
    expect(h.config.SUBACCOUNTS_PER_ACCOUNT).toBe(50);
  });

  it("does not reveal that an email exists in another tenant: it is only unique among the caller's sub-accounts", async () => {
    const parent = await h.createAccount(10);
    const stranger = await h.createAccount(10);
    const strangersSub = `taken-${stranger.id}@example.com`;
    expect(
      (await h.post('/manager/subaccount/add', { email: strangersSub, password: 'secret123' }, stranger.apikey)).body
        .code,
    ).toBe('subaccount_01');
    for (const email of [stranger.email, strangersSub, parent.email]) {
      const r = await h.post('/manager/subaccount/add', { email, password: 'secret123' }, parent.apikey);
      expect(r.body).toMatchObject({ code: 'subaccount_01', email: email.toLowerCase() });
    }
    // The stranger's accounts are untouched and each key still works for its own account.
    expect((await h.post('/credits/consult', {}, stranger.apikey)).body.credit).toBe(10);
    expect(
      (await h.post('/manager/subaccount/get_apikey', { email: strangersSub }, parent.apikey)).body.apikey,
    ).not.toBe((await h.post('/manager/subaccount/get_apikey', { email: strangersSub }, stranger.apikey)).body.apikey);
  });
});
