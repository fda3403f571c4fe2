import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { formatLocal } from '../../lib/time.js';
import { codeDigest, sealCode } from './codes.js';
import { saveSettings } from './store.js';
import { freshPhone, otpClient, recordCarrier, refusedPhone, wrongCode } from './testing.js';

/**
 * One test per row of the spec's OTP error table, with authentication, bad input and abuse protection.
 * Channels and code formats: otp-channels.test.ts; parallel requests: otp-concurrency.test.ts.
 */
describeEngines('OTP errors', (engine) => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness(engine);
    recordCarrier(h.ctx);
    key = (await h.createAccount(1000)).apikey;
  });
  afterAll(() => h.close());
  const client = (apikey = key) => otpClient(h, apikey, freshPhone());
  const credit = async (apikey = key) => (await h.post('/credits/consult', {}, apikey)).body.credit as number;
  const otpError = (r: { status: number; body: any }, status: number, error: string) => {
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({
      success: false,
      error,
      message: expect.any(String),
      hint: expect.any(String),
      next: expect.any(Array),
      request_id: expect.any(String),
    });
    expect(r.body.hint.length).toBeGreaterThan(10);
  };

  it('400 otp_missing_param: phone_number, country_code, company with sms and voice, code on verify', async () => {
    for (const body of [
      { country_code: '52', company: 'A' },
      { phone_number: '5512345678', company: 'A' },
      { phone_number: '', country_code: '52', company: 'A' },
    ]) {
      otpError(await h.post('/v2/otp', body, key), 400, 'otp_missing_param');
    }
    for (const channel of ['sms', 'voice']) {
      const r = await h.post('/v2/otp', { phone_number: freshPhone(), country_code: '52', channel }, key);
      otpError(r, 400, 'otp_missing_param');
      expect(r.body.field).toBe('company');
    }
    const v = await h.post('/v2/otp/verify', { phone_number: '5512345678', country_code: '52' }, key);
    otpError(v, 400, 'otp_missing_param');
    expect(v.body).toMatchObject({ field: 'code', next: ['POST /v2/otp/verify'] });
    otpError(await h.get('/v2/otp/status?phone_number=5512345678', key), 400, 'otp_missing_param');
    otpError(
      await h.request('DELETE', '/v2/otp', { body: { country_code: '52' }, apikey: key }),
      400,
      'otp_missing_param',
    );
  });

  it('400 otp_invalid_param: previous-API parameters, bad dates, lengths, formats, numbers', async () => {
    const c = client();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ voice: 1 }, 'voice'],
      [{ whatsapp: '1' }, 'whatsapp'],
      [{ template: 'a' }, 'template'],
      [{ expiration_date: formatLocal(Date.now() - 60_000) }, 'expiration_date'],
      [{ expiration_date: '2030-13-40 10:00:00' }, 'expiration_date'],
      [{ expiration_date: 'tomorrow' }, 'expiration_date'],
      [{ expiration_date: '2030-01-01' }, 'expiration_date'],
      [{ code_length: 3 }, 'code_length'],
      [{ code_length: 11 }, 'code_length'],
      [{ code_length: 6.5 }, 'code_length'],
      [{ code_length: 1e308 }, 'code_length'],
      [{ code_format: 'hex' }, 'code_format'],
      [{ code_rotate: 'maybe' }, 'code_rotate'],
      [{ code_show: 2 }, 'code_show'],
      [{ phone_number: '55/1234/5678' }, 'phone_number'],
      [{ phone_number: '551234567890' }, 'phone_number'],
      [{ country_code: 'MX' }, 'country_code'],
      [{ company: 'x'.repeat(51) }, 'company'],
      [{ company: 'Acme 🚀' }, 'company'],
      [{ company: { a: 1 } }, 'company'],
    ];
    for (const [body, field] of cases) {
      const r = await c.send(body);
      otpError(r, 400, 'otp_invalid_param');
      expect(r.body.field).toBe(field);
    }
    otpError(await c.verify('12-34'), 400, 'otp_invalid_param');
    expect(await c.messages()).toHaveLength(0);
    expect(await c.row()).toBeUndefined();
  });

  it('400 otp_invalid_param: company is a name, not an advertisement (its text may reach opted-out numbers)', async () => {
    for (const company of [
      'BUY NOW 50% OFF shop.example',
      'Acme shop.example',
      'Acme https://x.co',
      'bit.ly',
      'Acme: llama 5512345678',
      'Acme 55123',
      'Acme <b>',
      'Acme!',
      'Acme @acme',
    ]) {
      const c = client();
      const r = await c.send({ company });
      otpError(r, 400, 'otp_invalid_param');
      expect(r.body.field, company).toBe('company');
      expect(await c.messages()).toHaveLength(0);
    }
    for (const company of ["O'Reilly & Co.", 'Acme S.A. de C.V.', 'Clínica Sol', '7-Eleven', 'Farmacia 2000, S.A.']) {
      const r = await client().send({ company });
      expect(r.status, company).toBe(201);
    }
  });

  it('400 otp_invalid_channel', async () => {
    for (const channel of ['telegram', 'email', 3]) {
      const r = await client().send({ channel });
      otpError(r, 400, 'otp_invalid_channel');
      expect(r.body.hint).toContain('sms');
    }
  });

  it('400 otp_message_invalid: placeholders missing, non-GSM-7, over 160 after substitution', async () => {
    const c = client();
    for (const message of [
      'Your code is {{code}}',
      'From {{company}}',
      'Código {{code}} de {{company}} ✅',
      `{{code}} {{company}} ${'x'.repeat(150)}`,
    ]) {
      const r = await c.send({ message });
      otpError(r, 400, 'otp_message_invalid');
      expect(r.body.field).toBe('message');
    }
    // 160 exactly is accepted: 6-digit code + company "Acme" + padding.
    const fits = `{{code}} {{company}} ${'y'.repeat(160 - 6 - 4 - 2)}`;
    const ok = await c.send({ message: fits });
    expect(ok.status).toBe(201);
    expect((await c.messages())[0].text).toHaveLength(160);
  });

  it('401 otp_incorrect_code carries attempts_remaining', async () => {
    const c = client();
    const sent = await c.send();
    const r = await c.verify(wrongCode(sent.body.code));
    otpError(r, 401, 'otp_incorrect_code');
    expect(r.body.attempts_remaining).toBe(6);
  });

  it('402 otp_insufficient_credits with code sms_07: nothing sent, nothing changed', async () => {
    const poor = (await h.createAccount(0.5)).apikey;
    const c = client(poor);
    const r = await c.send();
    otpError(r, 402, 'otp_insufficient_credits');
    expect(r.body).toMatchObject({ code: 'sms_07', state: 'none' });
    expect(r.body.next).toContain('POST /credits/consult');
    expect((await c.status()).body.state).toBe('none');
    expect(await c.messages()).toHaveLength(0);
    // Chat-app costs 0.5 credits: that one goes out.
    expect((await c.send({ channel: 'chatapp' })).status).toBe(201);
    expect(await credit(poor)).toBe(0);
  });

  it('404 otp_not_found, 409 otp_already_verified, 410 otp_code_expired', async () => {
    const c = client();
    otpError(await c.verify('1234'), 404, 'otp_not_found');
    const sent = await c.send();
    await c.expire();
    otpError(await c.verify(sent.body.code), 410, 'otp_code_expired');
    const again = await c.send();
    expect((await c.verify(again.body.code)).status).toBe(200);
    otpError(await c.verify(again.body.code), 409, 'otp_already_verified');
  });

  it('429 otp_throttled and 429 otp_max_attempts', async () => {
    const c = client();
    const sent = await c.send();
    otpError(await c.send(), 429, 'otp_throttled');
    for (let i = 0; i < 6; i++) await c.verify(wrongCode(sent.body.code));
    const locked = await c.verify(wrongCode(sent.body.code));
    otpError(locked, 429, 'otp_max_attempts');
    expect(locked.body.attempts_remaining).toBe(0);
  });

  it('500 otp_internal with request_id when the database fails', async () => {
    await h.ctx.db.kysely.schema.alterTable('otp_verifications').renameTo('otp_verifications_away').execute();
    try {
      const r = await client().status();
      otpError(r, 500, 'otp_internal');
      expect(r.body.request_id).toBe(r.headers['x-request-id']);
      expect(JSON.stringify(r.body)).not.toMatch(/otp_verifications|SQL|stack/i);
    } finally {
      await h.ctx.db.kysely.schema.alterTable('otp_verifications_away').renameTo('otp_verifications').execute();
    }
  });

  it('502 otp_send_failed: the carrier refuses, the price is refunded and no code is claimed', async () => {
    const c = otpClient(h, key, refusedPhone());
    const before = await credit();
    const r = await c.send();
    otpError(r, 502, 'otp_send_failed');
    expect(r.body).toMatchObject({ state: 'none', next: ['POST /v2/otp'] });
    expect(r.body.code).toBeUndefined();
    expect((await c.status()).body.state).toBe('none');
    expect(await credit()).toBe(before);
    expect((await c.messages())[0]).toMatchObject({ status: 'refused' });
  });

  it('502 on a resend keeps the pending code as it was: same code, attempts and cooldown start', async () => {
    // A pending verification whose number the carrier now refuses.
    const c = otpClient(h, key, refusedPhone());
    otpError(await c.send(), 502, 'otp_send_failed');
    const row = (await c.row())!;
    const sentAt = Date.now() - 3_600_000;
    await h.ctx.db.kysely
      .updateTable('otp_verifications')
      .set({
        state: 'pending',
        code_hash: codeDigest(h.ctx.secrets.otpHmac, row.id, '424242'),
        code_enc: sealCode(h.ctx.secrets.otpHmac, '424242'),
        code_format: 'numeric',
        code_length: 6,
        attempts_remaining: 5,
        expires_at: Date.now() + 3_600_000,
        last_sent_at: sentAt,
        channel: 'sms',
      })
      .where('id', '=', row.id)
      .execute();
    for (const body of [{}, { code_rotate: true }]) {
      otpError(await c.send(body), 502, 'otp_send_failed');
      expect(await c.row()).toMatchObject({
        state: 'pending',
        attempts_remaining: 5,
        last_sent_at: sentAt,
        code_length: 6,
      });
    }
    expect((await c.status()).body).toMatchObject({ state: 'pending', attempts_remaining: 5, resend_available_in: 0 });
    expect((await c.verify('424242')).status).toBe(200);
  });

  it('authentication keeps the common envelope with real statuses: 401 auth_05 without or with a wrong key, 403 auth_04 outside the allow-list', async () => {
    for (const apikey of [undefined, 'mns_not-a-key']) {
      const r = await h.post('/v2/otp', { phone_number: '5512345678', country_code: '52', company: 'A' }, apikey);
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ success: false, status: 401, code: 'auth_05' });
    }
    expect((await h.get('/v2/otp/status?phone_number=5512345678&country_code=52')).status).toBe(401);
    const fenced = await h.createAccount(10);
    await h.ctx.db.kysely
      .updateTable('accounts')
      .set({ allow_ips: JSON.stringify(['10.0.0.0/8']) })
      .where('id', '=', fenced.id)
      .execute();
    const r = await h.post('/v2/otp', { phone_number: '5512345678', country_code: '52', company: 'A' }, fenced.apikey);
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ success: false, status: 403, code: 'auth_04' });
  });

  it('bad input never gives a 500: form bodies, broken JSON, arrays, hostile strings, huge values', async () => {
    const phone = freshPhone();
    const form = await h.request('POST', '/v2/otp', {
      apikey: key,
      form: {
        phone_number: phone,
        country_code: '52',
        company: 'Acme',
        code_show: '1',
        code_length: '8',
        code_rotate: 'false',
      },
    });
    expect(form.status).toBe(201);
    expect(form.body.code).toMatch(/^\d{8}$/);
    const formVerify = await h.request('POST', '/v2/otp/verify', {
      apikey: key,
      form: { phone_number: phone, country_code: '52', code: form.body.code },
    });
    expect(formVerify.status).toBe(200);
    const broken = await h.request('POST', '/v2/otp', {
      apikey: key,
      body: '{"phone_number": ',
      headers: { 'content-type': 'application/json' },
    });
    otpError(broken, 400, 'otp_invalid_param');
    // A bare string is sent as text/plain: 415 in the OTP envelope.
    otpError(await h.post('/v2/otp', 'text', key), 415, 'otp_invalid_param');
    for (const body of [
      [1, 2],
      42,
      { phone_number: ['5512345678'], country_code: '52' },
      { phone_number: "'; DROP TABLE otp_verifications; --", country_code: '52' },
      { phone_number: '5512345678', country_code: '52', company: 'A', message: 'x'.repeat(100_000) },
      { phone_number: '5512345678', country_code: { $gt: '' } },
      { __proto__: { admin: true }, phone_number: 1e21, country_code: 52 },
    ]) {
      const r = await h.post('/v2/otp', body, key);
      expect(r.status).toBe(400);
      expect(r.body.success).toBe(false);
      expect(r.body.error).toMatch(/^otp_/);
    }
    const verify = await h.post(
      '/v2/otp/verify',
      { phone_number: '5512345678', country_code: '52', code: '<script>' },
      key,
    );
    otpError(verify, 400, 'otp_invalid_param');
    const huge = await h.post(
      '/v2/otp/verify',
      { phone_number: '5512345678', country_code: '52', code: '9'.repeat(5000) },
      key,
    );
    otpError(huge, 400, 'otp_invalid_param');
  });

  it('abuse protection: country allow-list 403 otp_country_blocked, new codes per number per hour 429 otp_rate_limited', async () => {
    const a = await h.createAccount(100);
    await saveSettings(h.ctx.db.kysely, a.id, { allowed_countries: '52,1' }, Date.now());
    const blocked = await otpClient(h, a.apikey, '3001234567', '57').send();
    otpError(blocked, 403, 'otp_country_blocked');
    expect((await otpClient(h, a.apikey, '2125551234', '1').send()).status).toBe(201);

    await saveSettings(h.ctx.db.kysely, a.id, { max_per_number_hour: 2 }, Date.now());
    const c = otpClient(h, a.apikey, freshPhone());
    const first = await c.send();
    await c.verify(first.body.code);
    expect((await c.send()).status).toBe(201);
    await c.elapseCooldown();
    // A resend of the pending code is not a new code: allowed.
    expect((await c.send()).body.action).toBe('resent');
    await c.elapseCooldown();
    const limited = await c.send({ code_rotate: true });
    otpError(limited, 429, 'otp_rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3000);
    // The pending code is untouched and still verifies.
    expect((await c.status()).body.state).toBe('pending');
    // Another number of the same account is not affected; other accounts have no limits by default.
    expect((await otpClient(h, a.apikey, freshPhone()).send()).status).toBe(201);
  });
});
