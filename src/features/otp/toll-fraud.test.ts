import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { freshPhone, otpClient, recordCarrier, wrongCode } from './testing.js';
import { saveSettings } from './store.js';
import { formatLocalDate } from '../../lib/time.js';

/** The OTP pumping and toll-fraud attacks, as an attacker would run them. */
describeEngines('OTP toll fraud and lock-and-rotate', (engine) => {
  let h: Harness;
  let carrier: ReturnType<typeof recordCarrier>;
  beforeAll(async () => {
    // The resend cooldown off, so the caps themselves are what stops the loop.
    h = await startHarness(engine, {
      env: { OTP_RESEND_COOLDOWN_SECONDS: '0', OTP_DAILY_ROUNDS_PER_NUMBER: '3', OTP_DAILY_SENDS_PER_NUMBER: '5' },
    });
    carrier = recordCarrier(h.ctx);
  });
  afterAll(() => h.close());

  const lock = async (c: ReturnType<typeof otpClient>, code: string) => {
    for (let i = 0; i < 7; i++) await c.verify(wrongCode(code));
    expect((await c.status()).body.state).toBe('locked');
  };

  it.each([['881'], ['979']])(
    'refuses to send a code to country code %s (satellite, premium rate), like /sms/send',
    async (cc) => {
      const a = await h.createAccount(100);
      const c = otpClient(h, a.apikey, '123456789', cc);
      const r = await c.send();
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, error: 'otp_country_unsupported', field: 'country_code' });
      expect(carrier.textsTo(`${cc}123456789`)).toEqual([]);
      expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(100);
      expect(await c.row()).toBeUndefined();
    },
  );

  /** Today's counts of a number, as if `locks` rounds had already locked today. */
  const lockedToday = (accountId: number, phone: string, locks: number) =>
    h.ctx.db.kysely
      .insertInto('otp_number_days')
      .values({
        root_account_id: accountId,
        country_code: '52',
        phone_number: phone,
        day: formatLocalDate(Date.now()),
        rounds: 0,
        sends: 0,
        locks,
      })
      .execute();

  it("keeps the spec's table for the first locks of a day: locked + code_rotate → pending with 7 new attempts", async () => {
    const a = await h.createAccount(100);
    const c = otpClient(h, a.apikey, freshPhone());
    let code = (await c.send()).body.code;
    for (const lockOfTheDay of [1, 2]) {
      await lock(c, code);
      const rotated = await c.send({ code_rotate: true });
      expect(rotated.status, `rotate after lock ${lockOfTheDay}`).toBe(200);
      expect(rotated.body).toMatchObject({ state: 'pending', action: 'restarted', attempts_remaining: 7 });
      code = rotated.body.code;
    }
    // The third lock of the day (OTP_LOCKS_BEFORE_COOLDOWN, default 3) brings the cooldown.
    await lock(c, code);
    const refused = await c.send({ code_rotate: true });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('otp_lock_cooldown');
    expect(carrier.textsTo(`52${c.number.phone_number}`)).toHaveLength(3);
    const day = await h.ctx.db.kysely
      .selectFrom('otp_number_days')
      .select(['locks'])
      .where('phone_number', '=', c.number.phone_number)
      .executeTakeFirstOrThrow();
    expect(day.locks).toBe(3);
  });

  it('counts the locks of a number for an account and its sub-accounts together', async () => {
    const parent = await h.createAccount(100);
    const email = `otp-locks-sub-${parent.id}@example.com`;
    const sub = (await h.post('/manager/subaccount/add', { email, password: 'secret123' }, parent.apikey)).body.apikey;
    await h.post('/manager/subaccount/credits/manage', { email, type: 1, credits: 10 }, parent.apikey);
    const phone = freshPhone();
    await lockedToday(parent.id, phone, 2);
    const c = otpClient(h, sub, phone);
    await lock(c, (await c.send()).body.code);
    expect((await c.send({ code_rotate: true })).body.error).toBe('otp_lock_cooldown');
  });

  it("puts a cooldown on a new code after the day's third lock, also through delete and create", async () => {
    const a = await h.createAccount(100);
    const c = otpClient(h, a.apikey, freshPhone());
    await lockedToday(a.id, c.number.phone_number, 2);
    const first = await c.send();
    await lock(c, first.body.code);
    const rotated = await c.send({ code_rotate: true });
    expect(rotated.status).toBe(429);
    expect(rotated.body.error).toBe('otp_lock_cooldown');
    expect(Number(rotated.headers['retry-after'])).toBeGreaterThan(800);
    expect((await c.remove()).status).toBe(200);
    expect((await c.send()).body.error).toBe('otp_lock_cooldown');
    expect(carrier.textsTo(`52${c.number.phone_number}`)).toHaveLength(1);
    // Once the cooldown has passed, a new round starts.
    await c.elapseLockCooldown();
    expect((await c.send({ code_rotate: true })).status).toBe(201);
  });

  it('caps rounds per number per day: lock-and-rotate no longer gives unlimited guesses', async () => {
    const a = await h.createAccount(100);
    const c = otpClient(h, a.apikey, freshPhone());
    let rounds = 0;
    for (let i = 0; i < 6; i++) {
      const r = await c.send({ code_rotate: true });
      if (r.status === 429) {
        expect(r.body.error).toBe('otp_daily_limit');
        expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
        break;
      }
      rounds++;
      await lock(c, r.body.code);
      await c.elapseLockCooldown();
    }
    expect(rounds).toBe(3);
    expect(carrier.textsTo(`52${c.number.phone_number}`)).toHaveLength(3);
  });

  it('caps sends (resends included) per number per day', async () => {
    const a = await h.createAccount(100);
    const c = otpClient(h, a.apikey, freshPhone());
    const codes = [];
    for (let i = 0; i < 5; i++) codes.push((await c.send()).status);
    expect(codes).toEqual([201, 200, 200, 200, 200]);
    const sixth = await c.send();
    expect(sixth.body.error).toBe('otp_daily_limit');
    expect(carrier.textsTo(`52${c.number.phone_number}`)).toHaveLength(5);
  });

  it('counts the caps for an account and its sub-accounts together, under parallel requests', async () => {
    const parent = await h.createAccount(100);
    const keys = [parent.apikey];
    for (let i = 0; i < 4; i++) {
      const email = `otp-sub${i}-${parent.id}@example.com`;
      keys.push((await h.post('/manager/subaccount/add', { email, password: 'secret123' }, parent.apikey)).body.apikey);
      await h.post('/manager/subaccount/credits/manage', { email, type: 1, credits: 10 }, parent.apikey);
    }
    const phone = freshPhone();
    const replies = await Promise.all(keys.map((k) => otpClient(h, k, phone).send()));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(3);
    expect(replies.filter((r) => r.status === 429).map((r) => r.body.error)).toEqual([
      'otp_daily_limit',
      'otp_daily_limit',
    ]);
    expect(carrier.textsTo(`52${phone}`)).toHaveLength(3);
  });

  it("a sub-account uses its parent's OTP settings whole, unless it has its own row", async () => {
    const parent = await h.createAccount(100);
    const email = `otp-settings-sub-${parent.id}@example.com`;
    const sub = (await h.post('/manager/subaccount/add', { email, password: 'secret123' }, parent.apikey)).body.apikey;
    await h.post('/manager/subaccount/credits/manage', { email, type: 1, credits: 10 }, parent.apikey);
    await saveSettings(h.ctx.db.kysely, parent.id, { allowed_countries: '1' }, Date.now());
    expect((await otpClient(h, sub, freshPhone()).send()).body.error).toBe('otp_country_blocked');
    // Its own row replaces the parent's entirely: its countries are any, its hourly limit 1.
    const subId = (
      await h.ctx.db.kysely
        .selectFrom('accounts')
        .select('id')
        .where('parent_id', '=', parent.id)
        .executeTakeFirstOrThrow()
    ).id;
    await saveSettings(h.ctx.db.kysely, subId, { max_per_number_hour: 1 }, Date.now());
    const c = otpClient(h, sub, freshPhone());
    expect((await c.send()).status).toBe(201);
    expect((await c.send({ code_rotate: true })).body.error).toBe('otp_rate_limited');
  });

  it("the first send of a day forgets the number's counts of earlier days", async () => {
    const a = await h.createAccount(100);
    const c = otpClient(h, a.apikey, freshPhone());
    const days = () =>
      h.ctx.db.kysely
        .selectFrom('otp_number_days')
        .select(['day', 'rounds', 'sends'])
        .where('phone_number', '=', c.number.phone_number)
        .orderBy('day')
        .execute();
    await h.ctx.db.kysely
      .insertInto('otp_number_days')
      .values({
        root_account_id: a.id,
        country_code: '52',
        phone_number: c.number.phone_number,
        day: '2000-01-01',
        rounds: 3,
        sends: 5,
      })
      .execute();
    expect((await c.send()).status).toBe(201);
    expect(await days()).toEqual([{ day: expect.not.stringMatching(/^2000/), rounds: 1, sends: 1 }]);
  });

  it('counts wrong codes per account for /metrics', async () => {
    const a = await h.createAccount(100);
    const c = otpClient(h, a.apikey, freshPhone());
    const first = await c.send();
    await Promise.all([1, 2, 3].map(() => c.verify(wrongCode(first.body.code))));
    const metrics = (await h.get('/metrics')).body as string;
    expect(metrics).toContain(`mensajero_otp_verification_failures_total{account="${a.id}"} 3`);
  });
});
