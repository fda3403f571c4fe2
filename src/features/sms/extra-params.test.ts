import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';

describeEngines('hostile extra_params', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  it('answers sms_41 to a 200,000-deep object instead of overflowing the stack', async () => {
    const a = await h.createAccount(10);
    const deep = `{"a":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const body = `{"numbers":"5512345678","message":"Hola","extra_params":${deep}}`;
    const r = await h.request('POST', '/sms/send', {
      apikey: a.apikey,
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: 'sms_41' });
    expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(10);
  });

  it('answers 400, not 500, to the same body with an Idempotency-Key', async () => {
    const a = await h.createAccount(10);
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const body = `{"numbers":"5512345678","message":"Hola","extra_params":{"a":${deep}}}`;
    const r = await h.request('POST', '/sms/send', {
      apikey: a.apikey,
      body,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'deep-1' },
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false });
    expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(10);
  });
});
