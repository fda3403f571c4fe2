import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../test/helpers/harness.js';
import { createInstance } from '../features/chatapp/store.js';
import { isStorable } from '../text/storable.js';

/**
 * NUL and other characters no database or carrier takes are refused with the
 * field's own 400 code, the same on both engines (PostgreSQL used to answer
 * 500 and SQLite stored them), and nothing is written.
 */
describeEngines('text hygiene', (engine) => {
  let h: Harness;
  let a: TestAccount;
  let instance: string;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    a = await h.createAccount(100);
    instance = (await createInstance(h.ctx.db.kysely, a.id)).instance_id;
    await h.post('/sms/send', { numbers: '5512345678', message: 'Hola' }, a.apikey);
  });
  afterAll(() => h.close());

  const cases: Array<[string, string, () => Record<string, unknown>, string]> = [
    ['/simulator/replies', 'response', () => ({ number: '5512345678', response: 'SI' }), 'simulator_03'],
    ['/sms/send', 'name', () => ({ numbers: '5512345678', message: 'Hola', name: 'x' }), 'sms_06'],
    ['/sms/send', 'sender', () => ({ numbers: '5512345678', message: 'Hola', sender: 'x' }), 'sms_38'],
    ['/sms/send', 'message', () => ({ numbers: '5512345678', message: 'Hola' }), 'sms_01'],
    [
      '/chatapp/send',
      'instance_id',
      () => ({ instance_id: instance, number: '5512345678', message: 'Hola' }),
      'whatsapp_01',
    ],
    [
      '/chatapp/send',
      'message',
      () => ({ instance_id: instance, number: '5512345678', message: 'Hola' }),
      'whatsapp_07',
    ],
    [
      '/voice/send',
      'name',
      () => ({ numbers: '5512345678', country_code: '52', template: 'a', code: '4815', name: 'x' }),
      'sms_06',
    ],
  ];

  for (const bad of ['a\u0000b', 'a\u0007b', 'a\uD800b']) {
    it.each(cases)(`refuses ${JSON.stringify(bad)} in %s %s`, async (path, field, body, code) => {
      const before = await h.ctx.db.kysely.selectFrom('messages').select('id').execute();
      const r = await h.post(path, { ...body(), [field]: bad }, a.apikey);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, code });
      expect(await h.ctx.db.kysely.selectFrom('messages').select('id').execute()).toHaveLength(before.length);
    });
  }

  it('refuses it in fields without a text helper too, and in the OTP API', async () => {
    const r = await h.post(
      '/v2/otp',
      { channel: 'sms', country_code: '52', phone_number: '5512345678', company: 'A\u0000B' },
      a.apikey,
    );
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).not.toContain('\u0000');
  });

  it('accepts tabs, line breaks, emoji and accents', async () => {
    expect(isStorable('Hola\tmundo\r\n¿qué tal? 👋')).toBe(true);
    const r = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: 'Hola\nqué tal', name: 'Campaña 👋' },
      a.apikey,
    );
    expect(r.body.code).toBe('sms_11');
  });
});
