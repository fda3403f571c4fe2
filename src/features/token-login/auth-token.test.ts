import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { rotateKey } from '../../accounts/store.js';
import { signToken, TOKEN_TTL_SECONDS } from '../../auth/token.js';
import { freshPhone, recordCarrier } from '../otp/testing.js';

describeEngines('POST /auth (legacy token login) and the token header', (engine) => {
  let h: Harness;
  let carrier: ReturnType<typeof recordCarrier>;
  beforeAll(async () => {
    h = await startHarness(engine);
    carrier = recordCarrier(h.ctx);
  });
  afterAll(() => h.close());

  const login = (apikey: string) => h.request('POST', '/auth', { form: { apikey } });
  const withToken = (method: string, url: string, token: string, form: Record<string, string>) =>
    h.request(method, url, {
      headers: { token, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });

  it('answers a token for the key (form body or JSON) that works in the token header, marked Deprecation: true', async () => {
    const a = await h.createAccount(10);
    const r = await login(a.apikey);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      message: 'token_created',
      status: 200,
      code: 'auth_token_01',
      token: expect.stringMatching(/^mnt_/),
      expires_in: TOKEN_TTL_SECONDS,
      expires_at: expect.any(String),
    });
    expect(r.body.token).not.toContain(a.apikey);
    const json = await h.post('/auth', { apikey: a.apikey }, undefined);
    expect(json.body.code).toBe('auth_token_01');

    const sent = await withToken('POST', '/sms/send', r.body.token, { numbers: '5512345678', message: 'Hola' });
    expect(sent.body.code).toBe('sms_11');
    expect(sent.headers.deprecation).toBe('true');
    expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(9);
    // The apikey header keeps working, without the deprecation mark.
    const plain = await h.post('/credits/consult', {}, a.apikey);
    expect(plain.headers.deprecation).toBeUndefined();
  });

  it('authenticates the previous OTP API: start and check with the token only', async () => {
    const a = await h.createAccount(10);
    const { token } = (await login(a.apikey)).body;
    const phone = freshPhone();
    const started = await withToken('POST', '/protected/json/phones/verification/start', token, {
      phone_number: phone,
      country_code: '52',
      company: 'Acme',
      code_length: '4',
    });
    expect(started.body).toMatchObject({ success: true, number: `52${phone}` });
    const code = /^(\d+) is/.exec(carrier.textsTo(`52${phone}`).at(-1)!)![1];
    const checked = await withToken('POST', '/protected/json/phones/verification/check', token, {
      phone_number: phone,
      verification_code: code,
    });
    expect(checked.body).toMatchObject({ success: true });
  });

  it('stops working when the key is rotated, the account archived, the token altered or expired', async () => {
    const a = await h.createAccount(10);
    const { token } = (await login(a.apikey)).body;
    expect((await withToken('POST', '/credits/consult', token, {})).status).toBe(200);
    const fresh = await rotateKey(h.ctx.db.kysely, h.ctx.secrets.keyEncryption, a.id);
    const dead = await withToken('POST', '/credits/consult', token, {});
    expect(dead.status).toBe(401);
    expect(dead.body).toMatchObject({ success: false, code: 'auth_05' });
    expect((await login(a.apikey)).status).toBe(401);
    const renewed = (await login(fresh)).body.token;
    expect((await withToken('POST', '/credits/consult', renewed, {})).status).toBe(200);

    // Archiving a sub-account ends its tokens.
    const sub = await h.post(
      '/manager/subaccount/add',
      { email: `sub-${Date.now()}@example.com`, password: 'secret123' },
      fresh,
    );
    const subToken = (await login(sub.body.apikey)).body.token;
    expect((await withToken('POST', '/credits/consult', subToken, {})).status).toBe(200);
    expect((await h.post('/manager/subaccount/archive', { email: sub.body.email }, fresh)).body.code).toBe(
      'subaccount_01',
    );
    expect((await withToken('POST', '/credits/consult', subToken, {})).status).toBe(401);

    const [head, exp, sig] = renewed.split('.');
    const otherKey = `${head.replace(/\d+$/, (n: string) => String(Number(n) + 1))}.${exp}.${sig}`;
    for (const bad of [
      otherKey,
      `${head}.${Number(exp) + 1}.${sig}`,
      `${renewed.slice(0, -2)}AA`,
      'mnt_1.2.3',
      'mnt_',
    ]) {
      expect((await withToken('POST', '/credits/consult', bad, {})).status, bad).toBe(401);
    }
    const keyId = Number(head.slice(4));
    const expired = signToken(h.ctx.secrets.authToken, keyId, Math.floor(Date.now() / 1000) - 1);
    const late = await withToken('POST', '/credits/consult', expired, {});
    expect(late.status).toBe(401);
    expect(late.body).toMatchObject({ code: 'auth_06', message: expect.stringContaining('POST /auth') });
  });

  it("applies the account's IP allow-list (a sub-account's parent's when it has none): 403 auth_04 and no token", async () => {
    const a = await h.createAccount(1);
    const sub = await h.post(
      '/manager/subaccount/add',
      { email: `b-${a.id}@example.com`, password: 'branch1' },
      a.apikey,
    );
    await h.ctx.db.kysely
      .updateTable('accounts')
      .set({ allow_ips: JSON.stringify(['10.0.0.0/8']) })
      .where('id', '=', a.id)
      .execute();
    for (const key of [a.apikey, sub.body.apikey]) {
      const r = await login(key);
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ success: false, status: 403, code: 'auth_04', message: expect.any(String) });
      expect(JSON.stringify(r.body)).not.toContain('mnt_');
    }
    await h.ctx.db.kysely
      .updateTable('accounts')
      .set({ allow_ips: JSON.stringify(['127.0.0.1/32']) })
      .where('id', '=', a.id)
      .execute();
    expect((await login(a.apikey)).body.code).toBe('auth_token_01');
    expect((await login(sub.body.apikey)).body.code).toBe('auth_token_01');
  });

  it('refuses a missing or wrong key with 401, never echoing it', async () => {
    const missing = await h.request('POST', '/auth', { form: {} });
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ success: false, code: 'auth_05' });
    const wrong = await login('mns_not-a-key');
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(wrong.body)).not.toContain('mns_not-a-key');
    expect((await h.post('/auth', { apikey: { $ne: '' } })).status).toBe(400);
    const a = await h.createAccount(1);
    expect((await h.request('POST', '/auth', { headers: { apikey: ` ${a.apikey}` }, body: {} })).body.code).toBe(
      'auth_token_01',
    );
  });
});
