import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { sendTools } from '../../../test/helpers/sms-send.js';

describeEngines('POST /sms/send', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const { credit } = sendTools(() => h);

  it('accepts 500 numbers in one request and refuses the 501st', async () => {
    const a = await h.createAccount(600);
    const numbers = Array.from({ length: 500 }, (_, i) => String(5510000000 + i)).join(',');
    const r = await h.post('/sms/send', { numbers, message: 'Hola' }, a.apikey);
    expect(r.body).toMatchObject({ code: 'sms_11', total_messages: 500, credit: 500 });
    expect(new Set(r.body.references.map((x: { reference: string }) => x.reference)).size).toBe(500);
    expect(
      await h.ctx.db.kysely.selectFrom('campaigns').select('id').where('account_id', '=', a.id).execute(),
    ).toHaveLength(1);
  });

  it('leaves exactly 10 of 20 parallel sends accepted when the credits cover 10, and a balance of zero', async () => {
    const a = await h.createAccount(10);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        h.post('/sms/send', { numbers: String(5520000000 + i), message: 'Hola' }, a.apikey),
      ),
    );
    expect(replies.filter((r) => r.body.code === 'sms_11')).toHaveLength(10);
    expect(replies.filter((r) => r.body.code === 'sms_07')).toHaveLength(10);
    expect(await credit(a.apikey)).toBe(0);
    expect(
      await h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', a.id).execute(),
    ).toHaveLength(10);
  });

  it('limits sends per account per second with 429 rate_01', async () => {
    const a = await h.createAccount(10);
    await h.ctx.db.kysely.updateTable('accounts').set({ rate_limit_per_sec: 2 }).where('id', '=', a.id).execute();
    const replies = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        h.post('/sms/send', { numbers: String(5540000000 + i), message: 'Hola' }, a.apikey),
      ),
    );
    expect(replies.filter((r) => r.status === 429 && r.body.code === 'rate_01').length).toBeGreaterThanOrEqual(2);
    expect(replies.filter((r) => r.body.code === 'sms_11').length).toBeLessThanOrEqual(2);
  });

  it('allows 1000 sandbox messages per account per day by default, then sms_17', async () => {
    const a = await h.createAccount(0);
    const batch = (offset: number) => Array.from({ length: 500 }, (_, i) => String(5510000000 + offset + i)).join(',');
    expect((await h.post('/sms/send', { numbers: batch(0), message: 'Prueba', sandbox: 1 }, a.apikey)).body.code).toBe(
      'sms_11',
    );
    expect(
      (await h.post('/sms/send', { numbers: batch(500), message: 'Prueba', sandbox: 1 }, a.apikey)).body.code,
    ).toBe('sms_11');
    const over = await h.post('/sms/send', { numbers: '5512345678', message: 'Prueba', sandbox: 1 }, a.apikey);
    expect(over.body).toMatchObject({ success: false, code: 'sms_17' });
  });

  it('accepts a campaign name of exactly 100 characters', async () => {
    const a = await h.createAccount(1);
    expect(
      (await h.post('/sms/send', { numbers: '5512345678', message: 'Hola', name: 'n'.repeat(100) }, a.apikey)).body
        .code,
    ).toBe('sms_11');
  });

  it('leaves the balance unchanged after a failed request', async () => {
    const a = await h.createAccount(5);
    for (const body of [
      { numbers: '5512345678,1112345678', message: 'Hola' },
      { numbers: '5512345678', message: 'x'.repeat(200) },
      { numbers: '5512345678', message: 'Hola', date: 'ayer' },
    ]) {
      expect((await h.post('/sms/send', body, a.apikey)).body.success).toBe(false);
    }
    expect(await credit(a.apikey)).toBe(5);
    expect(
      await h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', a.id).execute(),
    ).toHaveLength(0);
  });
});
