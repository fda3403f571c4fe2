import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { freshPhone, otpClient, recordCarrier } from './testing.js';

/**
 * sandbox on POST /v2/otp (docs/api/compatibility.md, "Sandbox on POST /v2/otp"): every
 * parameter and state rule is checked and the answer is the one a real
 * request would get, but nothing is sent, charged or written for the number.
 */
describeEngines('POST /v2/otp with sandbox', (engine) => {
  let h: Harness;
  let carrier: ReturnType<typeof recordCarrier>;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { OTP_DAILY_ROUNDS_PER_NUMBER: '2', OTP_DAILY_SENDS_PER_NUMBER: '3' } });
    carrier = recordCarrier(h.ctx);
  });
  afterAll(() => h.close());

  const credit = async (apikey: string) => (await h.post('/credits/consult', {}, apikey)).body.credit as number;
  const rowsOf = async (accountId: number, phone: string) => ({
    messages: await h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', accountId).execute(),
    events: await h.ctx.db.kysely.selectFrom('events').select('id').where('account_id', '=', accountId).execute(),
    days: await h.ctx.db.kysely.selectFrom('otp_number_days').selectAll().where('phone_number', '=', phone).execute(),
    starts: await h.ctx.db.kysely.selectFrom('otp_starts').select('id').where('phone_number', '=', phone).execute(),
  });
  const nothing = { messages: [], events: [], days: [], starts: [] };

  it('takes "1", 1, true and "true", in JSON and form bodies: the created answer, nothing sent, charged or stored', async () => {
    const a = await h.createAccount(10);
    for (const sandbox of ['1', 1, true, 'true']) {
      const c = otpClient(h, a.apikey, freshPhone());
      const r = await c.send({ sandbox });
      expect(r.status, String(sandbox)).toBe(201);
      expect(r.body).toMatchObject({
        success: true,
        sandbox: true,
        state: 'pending',
        action: 'created',
        attempts_remaining: 7,
        resend_available_in: 30,
        next: ['POST /v2/otp/verify', 'DELETE /v2/otp'],
        expires_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      });
      expect(r.body.message).toMatch(/sandbox/i);
      expect(r.body.code).toBeUndefined();
      expect(await c.row()).toBeUndefined();
      expect(carrier.textsTo(c.fullNumber)).toEqual([]);
      expect(await rowsOf(a.id, c.number.phone_number)).toEqual(nothing);
    }
    const phone = freshPhone();
    const form = await h.request('POST', '/v2/otp', {
      apikey: a.apikey,
      form: { phone_number: phone, country_code: '52', company: 'Acme', sandbox: '1' },
    });
    expect([form.status, form.body.sandbox]).toEqual([201, true]);
    expect(await rowsOf(a.id, phone)).toEqual(nothing);
    expect(await credit(a.apikey)).toBe(10);
  });

  it('needs no credits, and "0", 0, false and "false" send for real', async () => {
    const broke = await h.createAccount(0);
    expect((await otpClient(h, broke.apikey, freshPhone()).send({ sandbox: '1' })).status).toBe(201);
    expect((await otpClient(h, broke.apikey, freshPhone()).send({ sandbox: '0' })).body.error).toBe(
      'otp_insufficient_credits',
    );
    const a = await h.createAccount(10);
    for (const sandbox of ['0', 0, false, 'false']) {
      const r = await otpClient(h, a.apikey, freshPhone()).send({ sandbox });
      expect([r.status, r.body.sandbox, r.body.code], String(sandbox)).toEqual([201, undefined, expect.any(String)]);
    }
    expect(await credit(a.apikey)).toBe(6);
  });

  it('validates everything a real send does', async () => {
    const a = await h.createAccount(10);
    const c = otpClient(h, a.apikey, freshPhone());
    const refusal = async (body: Record<string, unknown>) => {
      const r = await c.send({ sandbox: '1', ...body });
      return [r.status, r.body.error, r.body.field];
    };
    expect(await refusal({ sandbox: 'yes' })).toEqual([400, 'otp_invalid_param', 'sandbox']);
    expect(await refusal({ company: undefined })).toEqual([400, 'otp_missing_param', 'company']);
    expect(await refusal({ channel: 'fax' })).toEqual([400, 'otp_invalid_channel', 'channel']);
    expect(await refusal({ message: 'no placeholders' })).toEqual([400, 'otp_message_invalid', 'message']);
    expect(await refusal({ expiration_date: '2001-01-01 00:00:00' })).toEqual([
      400,
      'otp_invalid_param',
      'expiration_date',
    ]);
    expect(await refusal({ voice: '1' })).toEqual([400, 'otp_invalid_param', 'voice']);
    expect(await refusal({ phone_number: '9001234567' })).toEqual([400, 'otp_number_unsupported', 'phone_number']);
    expect(await rowsOf(a.id, c.number.phone_number)).toEqual(nothing);
  });

  it('answers what the state would give (resent, restarted, throttled) and never changes the real verification', async () => {
    const a = await h.createAccount(10);
    const c = otpClient(h, a.apikey, freshPhone());
    const sandboxFirst = await c.send({ sandbox: '1' });
    expect(sandboxFirst.body.action).toBe('created');
    const real = await c.send();
    expect([real.status, real.body.action, real.body.attempts_remaining]).toEqual([201, 'created', 7]);
    const row = await c.row();
    const throttled = await c.send({ sandbox: true });
    expect([throttled.status, throttled.body.error, throttled.headers['retry-after']]).toEqual([
      429,
      'otp_throttled',
      expect.any(String),
    ]);
    await c.verify('000000' === real.body.code ? '111111' : '000000');
    await c.elapseCooldown();
    const cooled = await c.row();
    const resent = await c.send({ sandbox: 1 });
    expect([resent.status, resent.body.action, resent.body.attempts_remaining]).toEqual([200, 'resent', 6]);
    const rotated = await c.send({ sandbox: 1, code_rotate: true });
    expect([rotated.status, rotated.body.action, rotated.body.attempts_remaining]).toEqual([200, 'restarted', 7]);
    expect(await c.row()).toEqual(cooled);
    expect(cooled).toMatchObject({ code_hash: row!.code_hash, round: row!.round });
    expect(carrier.textsTo(c.fullNumber)).toHaveLength(1);
    expect((await c.verify(real.body.code)).body.state).toBe('verified');
    expect(await credit(a.apikey)).toBe(9);
    // The real send's delivery report is an event: the sandbox rounds made none.
    await eventually(async () => (await rowsOf(a.id, c.number.phone_number)).events.length === 1);
    expect((await rowsOf(a.id, c.number.phone_number)).messages).toHaveLength(1);
  });

  it('answers a locked verification as a real send would, and leaves it locked', async () => {
    const a = await h.createAccount(10);
    const c = otpClient(h, a.apikey, freshPhone());
    const real = await c.send();
    const wrong = real.body.code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 7; i++) await c.verify(wrong);
    const locked = await c.row();
    expect(locked!.state).toBe('locked');
    const refused = await c.send({ sandbox: '1' });
    expect([refused.status, refused.body.error]).toEqual([429, 'otp_max_attempts']);
    const rotated = await c.send({ sandbox: '1', code_rotate: true });
    expect([rotated.status, rotated.body.action, rotated.body.attempts_remaining]).toEqual([200, 'restarted', 7]);
    expect(await c.row()).toEqual(locked);
  });

  it('counts toward no cap of the number: after many sandbox rounds the real sends still have the whole day', async () => {
    const a = await h.createAccount(10);
    await h.ctx.db.kysely
      .insertInto('otp_settings')
      .values({ account_id: a.id, allowed_countries: null, max_per_number_hour: 1, updated_at: Date.now() })
      .execute();
    const c = otpClient(h, a.apikey, freshPhone());
    for (let i = 0; i < 4; i++) expect((await c.send({ sandbox: '1', code_rotate: true })).status).toBe(201);
    const real = await c.send();
    expect([real.status, real.body.action]).toEqual([201, 'created']);
    // The hourly limit (1 new code) is now reached by the real round only: the sandbox still answers as a real rotation would.
    await c.elapseCooldown();
    expect((await c.send({ sandbox: '1', code_rotate: true })).status).toBe(200);
    expect((await c.send({ code_rotate: true })).body.error).toBe('otp_rate_limited');
    const [day] = (await rowsOf(a.id, c.number.phone_number)).days;
    expect([day.rounds, day.sends]).toEqual([1, 1]);
  });

  it('leaves a real send made in parallel with sandbox ones as it would be alone', async () => {
    const a = await h.createAccount(10);
    const c = otpClient(h, a.apikey, freshPhone());
    const replies = await Promise.all([
      c.send(),
      ...Array.from({ length: 6 }, (_, i) => c.send({ sandbox: '1', code_rotate: i % 2 === 0 })),
    ]);
    expect([replies[0].status, replies[0].body.action, replies[0].body.sandbox]).toEqual([201, 'created', undefined]);
    for (const r of replies.slice(1)) expect([201, 429]).toContain(r.status);
    const rows = await rowsOf(a.id, c.number.phone_number);
    expect([rows.messages.length, rows.days[0].rounds, rows.days[0].sends]).toEqual([1, 1, 1]);
    expect((await c.row())!.round).toBe(1);
    expect((await c.verify(replies[0].body.code)).body.state).toBe('verified');
    expect(await credit(a.apikey)).toBe(9);
  });

  it('is bounded by the daily sandbox limit of the account (429 sms_17)', async () => {
    const limited = await startHarness(engine, { worker: false, env: { SANDBOX_DAILY_LIMIT: '2' } });
    try {
      const a = await limited.createAccount(0);
      const c = otpClient(limited, a.apikey, freshPhone());
      const statuses = await Promise.all([1, 2, 3].map(() => c.send({ sandbox: '1' })));
      expect(statuses.map((r) => r.status).sort()).toEqual([201, 201, 429]);
      expect(statuses.find((r) => r.status === 429)!.body.code).toBe('sms_17');
    } finally {
      await limited.close();
    }
  });
});
