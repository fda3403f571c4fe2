import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';
import { formatLocal } from '../../lib/time.js';
import { upsertSender } from './store.js';

/** Every code of the spec's SMS error table, reached by its condition through HTTP. */
describeEngines('POST /sms/send error codes', (engine) => {
  let h: Harness;
  let a: TestAccount;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    a = await h.createAccount(1000);
    await upsertSender(h.ctx.db.kysely, a.id, 'TIENDA', false);
    await upsertSender(h.ctx.db.kysely, a.id, 'TIENDARCS', true);
  });
  afterAll(() => h.close());

  const base = { numbers: '5512345678', message: 'Hola' };
  const many = (n: number) => Array.from({ length: n }, (_, i) => String(5510000000 + i)).join(',');

  it.each([
    ['sms_01', { ...base, message: '' }],
    ['sms_01', { ...base, message: '   ' }],
    ['sms_01', { numbers: '5512345678' }],
    ['sms_01', { ...base, message: { nested: 1 } }],
    ['sms_02', { ...base, message: 'x'.repeat(161) }],
    ['sms_02', { ...base, message: '€'.repeat(81) }],
    ['sms_02', { ...base, message: 'x'.repeat(100_000) }],
    ['sms_03', { message: 'Hola' }],
    ['sms_03', { ...base, numbers: '' }],
    ['sms_04', { ...base, numbers: '55123' }],
    ['sms_04', { ...base, numbers: '55123456789' }],
    ['sms_04', { ...base, numbers: '55/1234/5678' }],
    ['sms_04', { ...base, numbers: '5512345678,' }],
    ['sms_04', { ...base, numbers: ['5512345678'] }],
    ['sms_04', { ...base, numbers: '5512345678', find_country_code: 1 }],
    ['sms_05', { ...base, country_code: '' }],
    ['sms_05', { ...base, country_code: null }],
    ['sms_06', { ...base, name: 'n'.repeat(101) }],
    ['sms_15', { ...base, numbers: many(501) }],
    ['sms_16', { ...base, numbers: '5512345678,5587654321,5512345678' }],
    ['sms_16', { ...base, numbers: '525512345678,525512345678', find_country_code: '1' }],
    ['sms_18', { ...base, country_code: '34' }],
    ['sms_18', { ...base, country_code: 'xx' }],
    ['sms_18', { ...base, numbers: '34612345678', find_country_code: 1 }],
    ['sms_20', { ...base, date: formatLocal(Date.now() - 60_000) }],
    ['sms_21', { ...base, date: '2030-13-01 10:00:00' }],
    ['sms_21', { ...base, date: 'mañana' }],
    ['sms_21', { ...base, date: '2030-01-01' }],
    ['sms_24', { ...base, numbers: '1112345678' }],
    ['sms_24', { ...base, numbers: '521112345678', find_country_code: 1 }],
    ['sms_29', { ...base, shorten_url: 1 }],
    ['sms_31', { ...base, message: 'https://a.mx y https://b.mx', shorten_url: 1 }],
    ['sms_36', { ...base, channel: 3 }],
    ['sms_36', { ...base, channel: 'rcs' }],
    ['sms_37', { ...base, channel: 2 }],
    ['sms_38', { ...base, channel: 2, sender: 'TIENDA' }],
    ['sms_38', { ...base, channel: '2', sender: 'NOEXISTE' }],
    ['sms_39', { ...base, flash: 2 }],
    ['sms_39', { ...base, flash: 'yes' }],
    ['sms_40', { ...base, flash: 1, channel: 2, sender: 'TIENDARCS' }],
    ['sms_41', { ...base, extra_params: 'not json' }],
    ['sms_41', { ...base, extra_params: '{"a":"1","b":"2","c":"3","d":"4"}' }],
    ['sms_41', { ...base, extra_params: JSON.stringify({ ['k'.repeat(256)]: 'v' }) }],
    ['sms_41', { ...base, extra_params: '{"a":""}' }],
    ['sms_41', { ...base, extra_params: '{"a":{"b":1}}' }],
    ['sms_41', { ...base, extra_params: '[1,2]' }],
    ['sms_41', { ...base, extra_params: 'x'.repeat(50_000) }],
    ['sms_42', { ...base, sandbox: 5 }],
    ['sms_42', { ...base, shorten_url: 'maybe' }],
    ['sms_42', { ...base, find_country_code: 2 }],
    ['read_confirmation_01', { ...base, read_confirmation: { url: 'javascript:alert(1)' } }],
  ])('%s for %j', async (code, body) => {
    const r = await h.post('/sms/send', body, a.apikey);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, status: 400, code });
  });

  it('sms_07: a request the balance does not cover sends nothing and charges nothing', async () => {
    const poor = await h.createAccount(2);
    const r = await h.post('/sms/send', { ...base, numbers: '5511111111,5522222222,5533333333' }, poor.apikey);
    expect(r.body).toMatchObject({ success: false, status: 400, code: 'sms_07' });
    expect((await h.post('/credits/consult', {}, poor.apikey)).body.credit).toBe(2);
    expect(
      await h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', poor.id).execute(),
    ).toHaveLength(0);
  });

  it('answers the same codes on the GET form and on form bodies', async () => {
    expect((await h.get('/sms/send?numbers=55123&message=Hola', a.apikey)).body.code).toBe('sms_04');
    expect((await h.get('/sms/send?numbers=5512345678&message=', a.apikey)).body.code).toBe('sms_01');
    const form = await h.request('POST', '/sms/send', {
      apikey: a.apikey,
      form: { numbers: '5512345678', message: 'Hola', channel: '7' },
    });
    expect(form.body.code).toBe('sms_36');
  });

  it('documents both forms in /openapi.json', async () => {
    const doc = (await h.get('/openapi.json')).body;
    expect(doc.paths['/sms/send'].post.requestBody).toBeDefined();
    expect(doc.paths['/sms/send'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['numbers', 'message', 'sender', 'country_code']),
    );
    // Short links are followed by recipients, not called by integrations: out of the API document (a redirect has no 2xx answer to lint).
    expect(doc.paths['/s/{code}']).toBeUndefined();
  });

  it('never answers 500 to hostile input', async () => {
    for (const body of [
      { numbers: 5512345678, message: 12345 },
      { numbers: { $gt: '' }, message: ['x'] },
      { ...base, numbers: '5512345678\u0000' },
      { ...base, sender: { a: 1 } },
      { ...base, name: 123 },
      { ...base, date: 20300101 },
      { ...base, extra_params: { a: 'b' }, read_confirmation: '{bad' },
      { ...base, message: '\u202e\ud83d' },
      { ...base, showCampaignId: 'perhaps' },
      { ...base, numbers: ','.repeat(600) },
    ]) {
      const r = await h.post('/sms/send', body, a.apikey);
      expect(r.status, JSON.stringify(body)).toBeLessThan(500);
    }
  });
});
