import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { formatLocal } from '../../lib/time.js';

describeEngines('SMS sandbox', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { SANDBOX_DAILY_LIMIT: '10' } });
  });
  afterAll(() => h.close());

  const message = (reference: string) =>
    h.ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();

  it('validates fully, gives real references, charges nothing, schedules nothing, delivers nothing', async () => {
    const a = await h.createAccount(0);
    const r = await h.post(
      '/sms/send',
      { numbers: '5550000006,5512345678', message: 'Prueba', sandbox: 1, date: formatLocal(Date.now() + 3_600_000) },
      a.apikey,
    );
    expect(r.body).toMatchObject({ success: true, code: 'sms_11', total_messages: 2, credit: 0 });
    const m = await message(r.body.references[0].reference);
    expect(m).toMatchObject({
      sandbox: 1,
      status: 'sandbox',
      stage: 2,
      price_units: 0,
      scheduled_at: null,
      dlr_code: null,
    });
    expect(
      (await h.post('/sms/send', { numbers: '1112345678', message: 'Prueba', sandbox: 1 }, a.apikey)).body.code,
    ).toBe('sms_24');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(
      await h.ctx.db.kysely.selectFrom('events').select('id').where('account_id', '=', a.id).execute(),
    ).toHaveLength(0);
    expect((await message(r.body.references[0].reference)).dlr_code).toBeNull();
  });

  it('allows SANDBOX_DAILY_LIMIT messages per account per day, then sms_17, even under parallel requests', async () => {
    const a = await h.createAccount(0);
    const other = await h.createAccount(0);
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        h.post(
          '/sms/send',
          { numbers: `${5530000000 + 2 * i},${5530000001 + 2 * i}`, message: 'Prueba', sandbox: 1 },
          a.apikey,
        ),
      ),
    );
    expect(replies.filter((r) => r.body.code === 'sms_11')).toHaveLength(5);
    const refused = replies.filter((r) => r.body.code === 'sms_17');
    expect(refused).toHaveLength(3);
    expect(refused[0]).toMatchObject({ status: 429, body: { success: false, status: 429 } });
    expect(
      await h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', a.id).execute(),
    ).toHaveLength(10);
    expect(
      (await h.post('/sms/send', { numbers: '5512345678', message: 'Prueba', sandbox: 1 }, other.apikey)).body.code,
    ).toBe('sms_11');
    // Real sends do not count against the sandbox limit.
    const funded = await h.createAccount(5);
    await h.post('/sms/send', { numbers: '5512345678', message: 'x', sandbox: 1 }, funded.apikey);
    expect((await h.post('/sms/send', { numbers: '5512345678', message: 'Real' }, funded.apikey)).body.code).toBe(
      'sms_11',
    );
  });
});
