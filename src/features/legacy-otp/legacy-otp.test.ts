import { afterAll, beforeAll, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';
import { freshPhone, otpClient, recordCarrier, wrongCode } from '../otp/testing.js';
import { toXml } from './xml.js';

const xml = new XMLParser({ parseTagValue: false });

describeEngines('the previous OTP API (/protected/{json|xml}/phones/verification/…)', (engine) => {
  let h: Harness;
  let carrier: ReturnType<typeof recordCarrier>;
  let a: TestAccount;
  beforeAll(async () => {
    h = await startHarness(engine);
    carrier = recordCarrier(h.ctx);
    a = await h.createAccount(100);
  });
  afterAll(() => h.close());

  const path = (format: string, action: string) => `/protected/${format}/phones/verification/${action}`;
  /** A form body, as the four official SDKs send it. */
  const form = (format: string, action: string, fields: Record<string, string>, apikey = a.apikey) =>
    h.request('POST', path(format, action), { apikey, form: fields });
  /** The last code sent to a number, read from what the carrier received (spelled out for voice). */
  const lastCode = (fullNumber: string) => {
    const text = carrier.textsTo(fullNumber).at(-1)!;
    return (
      /^([A-Z0-9]+) is your verification code/.exec(text)?.[1] ?? /verificacion es: ([A-Z0-9, ]+)\./.exec(text)![1]
    ).replaceAll(', ', '');
  };
  const credit = async () => (await h.post('/credits/consult', {}, a.apikey)).body.credit;
  const sdkStart = (phone: string) => ({
    phone_number: phone,
    country_code: '52',
    company: 'Acme',
    code_length: '4',
    code_type: 'numeric',
    voice: '0',
    whatsapp: '0',
    template: 'a',
    sandbox: '0',
  });

  it('json: start, a wrong check, a right check (no country_code, as the SDKs send it), then an already verified check', async () => {
    const phone = freshPhone();
    const before = await credit();
    const started = await form('json', 'start', sdkStart(phone));
    expect(started.status).toBe(200);
    expect(started.headers['content-type']).toMatch(/^application\/json/);
    expect(started.body).toEqual({
      success: true,
      message: expect.any(String),
      number: `52${phone}`,
      credit: 1,
      reference: expect.any(String),
    });
    expect(await credit()).toBe(before - 1);
    const code = lastCode(`52${phone}`);
    expect(code).toMatch(/^\d{4}$/);

    const wrong = await form('json', 'check', { phone_number: phone, verification_code: wrongCode(code) });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({
      success: false,
      message: 'The code is not correct',
      code: 'otp_incorrect_code',
      attempts_remaining: 6,
    });
    const right = await form('json', 'check', { phone_number: phone, verification_code: code });
    expect(right.status).toBe(200);
    expect(right.body).toEqual({ success: true, message: expect.any(String) });
    const again = await form('json', 'check', { phone_number: phone, verification_code: code });
    expect(again.body).toMatchObject({ success: false, code: 'otp_already_verified' });
  });

  it('xml: the same flow answers XML with Content-Type text/xml; check also by GET with query parameters', async () => {
    const phone = freshPhone();
    const started = await form('xml', 'start', sdkStart(phone));
    expect(started.status).toBe(200);
    expect(started.headers['content-type']).toMatch(/^text\/xml/);
    const doc = xml.parse(started.body).response;
    expect(doc).toEqual({
      success: 'true',
      message: expect.any(String),
      number: `52${phone}`,
      credit: '1',
      reference: expect.any(String),
    });
    const code = lastCode(`52${phone}`);
    const wrong = await h.get(
      `${path('xml', 'check')}?phone_number=${phone}&verification_code=${wrongCode(code)}`,
      a.apikey,
    );
    expect(wrong.status).toBe(400);
    expect(xml.parse(wrong.body).response).toMatchObject({ success: 'false', code: 'otp_incorrect_code' });
    const right = await h.get(
      `${path('xml', 'check')}?phone_number=${phone}&country_code=52&verification_code=${code}`,
      a.apikey,
    );
    expect(right.headers['content-type']).toMatch(/^text\/xml/);
    expect(xml.parse(right.body).response).toEqual({ success: 'true', message: expect.any(String) });
    // Authentication errors come in the same format.
    const bad = await form('xml', 'check', { phone_number: phone, verification_code: code }, 'wrong-key');
    expect(bad.status).toBe(401);
    expect(xml.parse(bad.body).response).toMatchObject({ success: 'false', code: 'auth_05' });
  });

  it('shares one state per number with /v2/otp: cooldown (429 with Retry-After), resend of the same code, reset_code 1 for a new one', async () => {
    const phone = freshPhone();
    const c = otpClient(h, a.apikey, phone);
    await form('json', 'start', sdkStart(phone));
    expect((await c.status()).body).toMatchObject({ state: 'pending', attempts_remaining: 7 });
    const first = lastCode(c.fullNumber);

    const throttled = await form('json', 'resend', { phone_number: phone, country_code: '52', company: 'Acme' });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect(throttled.body).toMatchObject({ success: false, code: 'otp_throttled' });
    expect((await c.send()).status).toBe(429);

    await c.elapseCooldown();
    const resent = await h.post(
      path('json', 'resend'),
      { phone_number: phone, country_code: 52, company: 'Acme', reset_code: 0 },
      a.apikey,
    );
    expect(resent.body).toEqual({
      success: true,
      message: expect.any(String),
      number: c.fullNumber,
      credit: 1,
      reference: expect.any(String),
    });
    expect(lastCode(c.fullNumber)).toBe(first);

    await c.elapseCooldown();
    await form('json', 'resend', {
      phone_number: phone,
      country_code: '+52',
      company: 'Acme',
      reset_code: '1',
      code_type: 'alphanumeric',
    });
    const second = lastCode(c.fullNumber);
    expect((await c.verify(first)).body.error).toBe('otp_incorrect_code');
    // The legacy check and /v2/otp/verify see the same code.
    expect((await c.verify(second)).body.state).toBe('verified');
  });

  it('reset: reset_code 0 gives a locked code its attempts back, reset_code 1 discards it', async () => {
    const phone = freshPhone();
    await form('json', 'start', sdkStart(phone));
    const code = lastCode(`52${phone}`);
    for (let i = 0; i < 6; i++)
      await form('json', 'check', { phone_number: phone, verification_code: wrongCode(code) });
    const locked = await form('json', 'check', { phone_number: phone, verification_code: wrongCode(code) });
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ success: false, code: 'otp_max_attempts' });

    const cleared = await form('json', 'reset', { phone_number: phone, country_code: '52', reset_code: '0' });
    expect(cleared.body).toEqual({ success: true, message: expect.any(String) });
    expect((await otpClient(h, a.apikey, phone).status()).body).toMatchObject({
      state: 'pending',
      attempts_remaining: 7,
    });
    expect((await form('json', 'check', { phone_number: phone, verification_code: code })).body.success).toBe(true);

    const phone2 = freshPhone();
    await form('xml', 'start', sdkStart(phone2));
    const discarded = await form('xml', 'reset', { phone_number: phone2, country_code: '52', reset_code: '1' });
    expect(xml.parse(discarded.body).response.success).toBe('true');
    const after = await form('json', 'check', { phone_number: phone2, verification_code: lastCode(`52${phone2}`) });
    expect(after.status).toBe(404);
    expect(after.body).toMatchObject({ success: false, code: 'otp_not_found' });
    // Nothing to reset: the same 404.
    expect((await form('json', 'reset', { phone_number: freshPhone(), reset_code: '0' })).status).toBe(404);
  });

  it('reset with reset_code 0 is a new round of guesses: it counts toward the daily rounds and waits out a lock cooldown', async () => {
    const lockWith = async (phone: string, code: string) => {
      for (let i = 0; i < 7; i++)
        await form('json', 'check', { phone_number: phone, verification_code: wrongCode(code) });
    };
    const reset = (phone: string) =>
      form('json', 'reset', { phone_number: phone, country_code: '52', reset_code: '0' });
    // Locks: the first OTP_LOCKS_BEFORE_COOLDOWN - 1 locks of a day get fresh attempts; from the 3rd the cooldown holds them.
    const phone = freshPhone();
    await form('json', 'start', sdkStart(phone));
    const code = lastCode(`52${phone}`);
    for (let lock = 1; lock <= 2; lock++) {
      await lockWith(phone, code);
      expect((await reset(phone)).body).toEqual({ success: true, message: expect.any(String) });
    }
    await lockWith(phone, code);
    const cooling = await reset(phone);
    expect(cooling.status).toBe(429);
    expect(cooling.body).toMatchObject({ success: false, code: 'otp_lock_cooldown' });
    expect((await otpClient(h, a.apikey, phone).status()).body).toMatchObject({ state: 'locked' });

    // Rounds: the start is round 1, so OTP_DAILY_ROUNDS_PER_NUMBER - 1 resets pass and the next is refused.
    const other = freshPhone();
    await form('json', 'start', sdkStart(other));
    for (let i = 1; i < h.config.OTP_DAILY_ROUNDS_PER_NUMBER; i++) expect((await reset(other)).status).toBe(200);
    const capped = await reset(other);
    expect(capped.status).toBe(429);
    expect(capped.body).toMatchObject({ success: false, code: 'otp_daily_limit' });
  });

  it('voice 1 calls with the voice script of template a; whatsapp 1 sends by chat-app', async () => {
    const phone = freshPhone();
    const voice = await form('json', 'start', { ...sdkStart(phone), voice: '1' });
    expect(voice.body).toMatchObject({ success: true, credit: 2 });
    const call = carrier.textsTo(`52${phone}`).at(-1)!;
    expect(call).toMatch(
      /^Hola, te llamamos de Acme\. Tu codigo de verificacion es: \d, \d, \d, \d\. Repito: \d, \d, \d, \d\./,
    );
    const code = lastCode(`52${phone}`);
    expect((await form('json', 'check', { phone_number: phone, verification_code: code })).body.success).toBe(true);

    const chat = freshPhone();
    const sent = await h.post(
      path('json', 'start'),
      { phone_number: chat, country_code: 52, company: 'Acme', whatsapp: 1, code_length: 6 },
      a.apikey,
    );
    expect(sent.body).toMatchObject({ success: true, credit: 0.5 });
    const row = await h.ctx.db.kysely
      .selectFrom('messages')
      .select(['channel'])
      .where('reference', '=', sent.body.reference)
      .executeTakeFirstOrThrow();
    expect(row.channel).toBe('chatapp');
  });

  it('sandbox 1 validates and records a sandbox message, sends nothing, charges nothing and leaves the state alone', async () => {
    const phone = freshPhone();
    const before = await credit();
    const r = await form('json', 'start', { ...sdkStart(phone), sandbox: '1' });
    expect(r.body).toEqual({
      success: true,
      message: expect.stringContaining('Sandbox'),
      number: `52${phone}`,
      credit: 0,
      reference: expect.any(String),
    });
    expect(await credit()).toBe(before);
    expect(carrier.textsTo(`52${phone}`)).toEqual([]);
    expect((await otpClient(h, a.apikey, phone).status()).body.state).toBe('none');
    const row = await h.ctx.db.kysely
      .selectFrom('messages')
      .select(['sandbox', 'text'])
      .where('reference', '=', r.body.reference)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ sandbox: 1, text: expect.stringContaining('****') });
    expect((await form('json', 'start', { ...sdkStart(phone), sandbox: '1', company: '' })).body).toMatchObject({
      success: false,
      code: 'otp_missing_param',
    });
  });

  it('refuses bad input with a 4xx in its shape, never a 500', async () => {
    const phone = freshPhone();
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ country_code: '52', company: 'Acme' }, 400, 'otp_missing_param'],
      [{ phone_number: '55/1234/5678', company: 'Acme' }, 400, 'otp_invalid_param'],
      [{ phone_number: phone, company: 'A'.repeat(41) }, 400, 'otp_invalid_param'],
      [{ phone_number: phone, company: 'BUY NOW 50% OFF shop.example' }, 400, 'otp_invalid_param'],
      [{ phone_number: phone, company: 'Acme shop.example' }, 400, 'otp_invalid_param'],
      [{ phone_number: phone, company: 'Acme shop.example', voice: '1' }, 400, 'otp_invalid_param'],
      [{ phone_number: phone, company: 'Acme', voice: '1', whatsapp: '1' }, 400, 'otp_invalid_param'],
      [{ phone_number: phone, company: 'Acme', voice: '2' }, 400, 'otp_invalid_param'],
      [{ phone_number: phone, company: 'Acme', template: 'z' }, 400, 'otp_invalid_param'],
      [{ phone_number: phone, company: 'Acme', code_length: '3' }, 400, 'otp_invalid_param'],
      [{ phone_number: phone, company: 'Acme', code_type: 'hex' }, 400, 'otp_invalid_param'],
      [{ phone_number: phone, company: 'Acme', expiration_date: '2020-01-01 00:00:00' }, 400, 'otp_invalid_param'],
    ];
    for (const [body, status, code] of cases) {
      const r = await form('json', 'start', body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body).toMatchObject({ success: false, code, message: expect.any(String) });
    }
    const typed = await form('json', 'start', { phone_number: phone, company: 'Acme', code_type: 'hex' });
    expect(typed.body.message).toContain('code_type');
    const broken = await h.request('POST', path('xml', 'start'), {
      apikey: a.apikey,
      headers: { 'content-type': 'application/json' },
      body: '{"phone_number":',
    });
    expect(broken.status).toBe(400);
    expect(xml.parse(broken.body).response).toMatchObject({ success: 'false', code: 'invalid_json' });
    expect((await form('yaml', 'start', sdkStart(phone))).status).toBe(404);
    const poor = await h.createAccount(0);
    const unpaid = await form('json', 'start', sdkStart(freshPhone()), poor.apikey);
    expect(unpaid.status).toBe(402);
    expect(unpaid.body).toMatchObject({ success: false, code: 'otp_insufficient_credits' });
  });

  it('lets exactly one of parallel right checks succeed', async () => {
    const phone = freshPhone();
    await form('json', 'start', sdkStart(phone));
    const code = lastCode(`52${phone}`);
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => form('json', 'check', { phone_number: phone, verification_code: code })),
    );
    expect(replies.filter((r) => r.body.success === true)).toHaveLength(1);
    expect(replies.filter((r) => r.body.code === 'otp_already_verified')).toHaveLength(5);
  });

  it('escapes text in XML and drops characters XML cannot carry', () => {
    expect(toXml({ message: `<a href="x">'&'</a>\u0001`, n: null, ok: true })).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>\n<response><message>&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;</message><n/><ok>true</ok></response>\n`,
    );
  });
});
