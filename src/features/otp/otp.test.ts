import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { formatLocal, parseLocal } from '../../lib/time.js';
import { dispatchCampaign } from '../../messaging/dispatch.js';
import { freshPhone, otpClient, recordCarrier, wrongCode } from './testing.js';

/** One test per row of the spec's OTP state table, through HTTP. */
describeEngines('OTP state table', (engine) => {
  let h: Harness;
  let key: string;
  let carrier: ReturnType<typeof recordCarrier>;
  beforeAll(async () => {
    h = await startHarness(engine);
    carrier = recordCarrier(h.ctx);
    key = (await h.createAccount(1000)).apikey;
  });
  afterAll(() => h.close());
  const client = () => otpClient(h, key, freshPhone());
  const credit = async () => (await h.post('/credits/consult', {}, key)).body.credit as number;

  it('none → POST /v2/otp: 201 created, code sent and charged, 7 attempts, cooldown 30 s', async () => {
    const c = client();
    const before = await credit();
    const r = await c.send();
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      success: true,
      state: 'pending',
      action: 'created',
      attempts_remaining: 7,
      resend_available_in: 30,
      next: ['POST /v2/otp/verify', 'DELETE /v2/otp'],
    });
    expect(r.body.code).toMatch(/^\d{6}$/);
    expect(r.body.request_id).toBe(r.headers['x-request-id']);
    expect(r.body.hint).toContain('/v2/otp/verify');
    const expires = parseLocal(r.body.expires_at)!;
    expect(Math.abs(expires - (Date.now() + 24 * 3600_000))).toBeLessThan(60_000);
    expect(carrier.textsTo(c.fullNumber)).toEqual([
      `${r.body.code} is your verification code from Acme. Do not share it.`,
    ]);
    // Once sent, the stored text (what reports show) has the code masked.
    const [message] = await c.messages();
    expect(message.text).toBe('****** is your verification code from Acme. Do not share it.');
    expect(message.channel).toBe('sms');
    expect(message.stage).toBeGreaterThanOrEqual(1);
    expect(await credit()).toBe(before - 1);
    const campaign = await h.ctx.db.kysely
      .selectFrom('campaigns')
      .selectAll()
      .where('id', '=', message.campaign_id)
      .executeTakeFirstOrThrow();
    expect(campaign.source).toBe('otp');
    // Submitted inline, once: the campaign's dispatch job, a safety net, finds nothing left to send.
    await dispatchCampaign(h.ctx, campaign.id);
    expect(carrier.textsTo(c.fullNumber)).toHaveLength(1);
    // The code is stored only as an HMAC (and a sealed copy for resends), never in clear.
    const row = (await c.row())!;
    expect(JSON.stringify(row)).not.toContain(`"${r.body.code}"`);
    expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('expired → POST /v2/otp: 201 created with a new code', async () => {
    const c = client();
    const first = await c.send();
    await c.expire();
    const r = await c.send();
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ action: 'created', attempts_remaining: 7 });
    expect((await c.verify(first.body.code)).status).toBe(first.body.code === r.body.code ? 200 : 401);
  });

  it('pending, cooldown elapsed, no code_rotate: 200 resent, the same code, on another channel if asked', async () => {
    const c = client();
    const first = await c.send();
    await c.verify(wrongCode(first.body.code));
    await c.elapseCooldown();
    const r = await c.send({ channel: 'voice' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      state: 'pending',
      action: 'resent',
      code: first.body.code,
      attempts_remaining: 6,
      expires_at: first.body.expires_at,
    });
    const messages = await c.messages();
    expect(messages).toHaveLength(2);
    expect(messages[1].channel).toBe('voice');
    expect(carrier.textsTo(c.fullNumber)[1]).toContain([...first.body.code].join(', '));
    expect((await c.verify(first.body.code)).status).toBe(200);
  });

  it('pending, cooldown elapsed, code_rotate true: 200 restarted, new code, 7 fresh attempts, the old code no longer works', async () => {
    const c = client();
    const first = await c.send({ code_length: 10 });
    await c.verify(wrongCode(first.body.code));
    await c.elapseCooldown();
    const r = await c.send({ code_rotate: true, code_length: 10 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ action: 'restarted', attempts_remaining: 7, state: 'pending' });
    expect(r.body.code).not.toBe(first.body.code);
    const old = await c.verify(first.body.code);
    expect(old.status).toBe(401);
    expect(old.body.attempts_remaining).toBe(6);
    expect((await c.verify(r.body.code)).status).toBe(200);
  });

  it('pending, cooldown active: 429 otp_throttled with Retry-After and resend_available_in, nothing sent', async () => {
    const c = client();
    await c.send();
    for (const body of [{}, { code_rotate: true }]) {
      const r = await c.send(body);
      expect(r.status).toBe(429);
      expect(r.body).toMatchObject({
        success: false,
        state: 'pending',
        error: 'otp_throttled',
        attempts_remaining: 7,
        next: ['POST /v2/otp/verify', 'GET /v2/otp/status'],
      });
      expect(r.body.resend_available_in).toBeGreaterThan(0);
      expect(r.body.resend_available_in).toBeLessThanOrEqual(30);
      expect(Number(r.headers['retry-after'])).toBe(r.body.resend_available_in);
      expect(r.body.request_id).toBeTruthy();
    }
    expect(await c.messages()).toHaveLength(1);
  });

  it('verified → POST /v2/otp: 201 restarted, a new cycle', async () => {
    const c = client();
    const first = await c.send();
    expect((await c.verify(first.body.code)).status).toBe(200);
    const r = await c.send();
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ action: 'restarted', state: 'pending', attempts_remaining: 7 });
    expect((await c.status()).body.state).toBe('pending');
    expect((await c.verify(r.body.code)).status).toBe(200);
  });

  it('pending, code matches: 200 verified, next empty', async () => {
    const c = client();
    const first = await c.send();
    const r = await c.verify(first.body.code);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      state: 'verified',
      action: 'verified',
      message: expect.any(String),
      hint: expect.any(String),
      next: [],
      request_id: r.headers['x-request-id'],
    });
    expect((await c.status()).body.state).toBe('verified');
  });

  it('pending, wrong code, attempts remain: 401 otp_incorrect_code, attempts_remaining decreases, next points at verify', async () => {
    const c = client();
    const first = await c.send();
    for (const left of [6, 5]) {
      const r = await c.verify(wrongCode(first.body.code));
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({
        success: false,
        state: 'pending',
        error: 'otp_incorrect_code',
        attempts_remaining: left,
        expires_at: first.body.expires_at,
      });
      expect(r.body.next[0]).toBe('POST /v2/otp/verify');
      expect(r.body.hint).toContain(`${left} attempts left`);
    }
    expect((await c.status()).body.attempts_remaining).toBe(5);
  });

  it('pending, 7th wrong code: 429 otp_max_attempts, attempts_remaining 0, state locked, next is a rotating resend', async () => {
    const c = client();
    const first = await c.send();
    for (let i = 0; i < 6; i++) expect((await c.verify(wrongCode(first.body.code))).status).toBe(401);
    const r = await c.verify(wrongCode(first.body.code));
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({
      success: false,
      state: 'locked',
      error: 'otp_max_attempts',
      attempts_remaining: 0,
      next: ['POST /v2/otp with code_rotate=true', 'DELETE /v2/otp'],
    });
    expect((await c.status()).body).toMatchObject({ state: 'locked', attempts_remaining: 0 });
    // Locked: even the right code no longer verifies.
    expect((await c.verify(first.body.code)).body.error).toBe('otp_max_attempts');
  });

  const lock = async (c: ReturnType<typeof client>) => {
    const first = await c.send();
    for (let i = 0; i < 7; i++) await c.verify(wrongCode(first.body.code));
    expect((await c.status()).body.state).toBe('locked');
    return first;
  };

  it('locked + code_rotate true: a new round of 7 attempts with a new code', async () => {
    const c = client();
    const first = await lock(c);
    await c.elapseLockCooldown();
    const r = await c.send({ code_rotate: true });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, state: 'pending', action: 'restarted', attempts_remaining: 7 });
    expect(r.body.code).not.toBe(first.body.code);
    expect((await c.verify(r.body.code)).status).toBe(200);
  });

  it('locked without code_rotate: stays locked, 429 otp_max_attempts, nothing sent', async () => {
    const c = client();
    await lock(c);
    const r = await c.send();
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ state: 'locked', error: 'otp_max_attempts', attempts_remaining: 0 });
    expect(r.body.next[0]).toBe('POST /v2/otp with code_rotate=true');
    expect(await c.messages()).toHaveLength(1);
    expect((await c.status()).body.state).toBe('locked');
  });

  it('pending, expiry reached: status expired, verify 410 otp_code_expired', async () => {
    const c = client();
    const first = await c.send();
    await c.expire();
    expect((await c.status()).body).toMatchObject({ state: 'expired', next: ['POST /v2/otp'] });
    const r = await c.verify(first.body.code);
    expect(r.status).toBe(410);
    expect(r.body).toMatchObject({
      success: false,
      state: 'expired',
      error: 'otp_code_expired',
      next: ['POST /v2/otp'],
    });
  });

  it('expiry: default 24 h, a given future date is kept, later than 3 days is reduced to 3 days with a warning', async () => {
    const inTwoDays = formatLocal(Date.now() + 2 * 24 * 3600_000);
    const kept = await client().send({ expiration_date: inTwoDays });
    expect(kept.status).toBe(201);
    expect(kept.body.expires_at).toBe(inTwoDays);
    expect(kept.body.warning).toBeUndefined();
    const reduced = await client().send({ expiration_date: formatLocal(Date.now() + 10 * 24 * 3600_000) });
    expect(reduced.status).toBe(201);
    expect(Math.abs(parseLocal(reduced.body.expires_at)! - (Date.now() + 3 * 24 * 3600_000))).toBeLessThan(60_000);
    expect(reduced.body.warning).toContain('3 days');
  });

  it('none → verify: 404 otp_not_found (never created, and after a delete)', async () => {
    const c = client();
    const r = await c.verify('123456');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, state: 'none', error: 'otp_not_found', next: ['POST /v2/otp'] });
    const sent = await c.send();
    await c.remove();
    expect((await c.verify(sent.body.code)).status).toBe(404);
  });

  it('verified → verify: 409 otp_already_verified, with any code', async () => {
    const c = client();
    const first = await c.send();
    await c.verify(first.body.code);
    for (const code of [first.body.code, wrongCode(first.body.code)]) {
      const r = await c.verify(code);
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({
        success: false,
        state: 'verified',
        error: 'otp_already_verified',
        next: ['POST /v2/otp'],
      });
    }
  });

  it('any → DELETE /v2/otp: 200 deleted, state none, nothing sent, even when nothing was active', async () => {
    const c = client();
    const empty = await c.remove();
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      success: true,
      state: 'none',
      action: 'deleted',
      message: expect.any(String),
      hint: expect.any(String),
      next: ['POST /v2/otp'],
      request_id: empty.headers['x-request-id'],
    });
    await c.send();
    const before = await credit();
    const r = await c.remove();
    expect(r.body).toMatchObject({ state: 'none', action: 'deleted' });
    expect((await c.status()).body.state).toBe('none');
    expect(await c.messages()).toHaveLength(1);
    expect(await credit()).toBe(before);
    // Deleted: a new POST creates (201) without waiting for the cooldown.
    expect((await c.send()).status).toBe(201);
    // Query-string form of DELETE works too.
    const q = await h.request('DELETE', `/v2/otp?phone_number=${c.number.phone_number}&country_code=52`, {
      apikey: key,
    });
    expect(q.body).toMatchObject({ state: 'none', action: 'deleted' });
  });

  it('any → GET /v2/otp/status: no side effects', async () => {
    const c = client();
    const none = await c.status();
    expect(none.status).toBe(200);
    expect(none.body).toEqual({
      success: true,
      state: 'none',
      message: expect.any(String),
      hint: expect.stringContaining('POST /v2/otp'),
      next: ['POST /v2/otp'],
      expires_at: null,
      attempts_remaining: null,
      resend_available_in: 0,
      request_id: none.headers['x-request-id'],
    });
    expect(await c.row()).toBeUndefined();
    const sent = await c.send();
    await c.verify(wrongCode(sent.body.code));
    const row = await c.row();
    const a = await c.status();
    const b = await c.status();
    expect(a.body).toMatchObject({ state: 'pending', expires_at: sent.body.expires_at, attempts_remaining: 6 });
    expect(b.body.attempts_remaining).toBe(6);
    expect(await c.row()).toEqual(row);
    expect(await c.messages()).toHaveLength(1);
  });
});
