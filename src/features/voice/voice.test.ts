import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { toUnits } from '../../accounts/credits.js';
import { setPrice } from '../../messaging/pricing.js';
import { formatLocal } from '../../lib/time.js';

describeEngines('voice send', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { SIMULATOR_DLR_DELAY_MS: '10', SANDBOX_DAILY_LIMIT: '3' } });
  });
  afterAll(() => h.close());

  const credit = async (key: string) => (await h.post('/credits/consult', {}, key)).body.credit;
  const message = (reference: string) =>
    h.ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
  const messageCount = async (accountId: number) =>
    (await h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', accountId).execute()).length;
  const send = (apikey: string, fields: Record<string, unknown>) =>
    h.post(
      '/voice/send',
      { numbers: '5512345678', country_code: '52', template: 'a', code: '4815', ...fields },
      apikey,
    );
  const numbers = (count: number, from = 5500000000) =>
    Array.from({ length: count }, (_, i) => String(from + i)).join(',');

  it('calls each number with the final script: sms_11, total_messages, references, credit', async () => {
    const a = await h.createAccount(10);
    const r = await send(a.apikey, { numbers: '5512345678, 5550000006', company: 'Acme & Co.' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      message: 'sent_messages',
      status: 200,
      code: 'sms_11',
      total_messages: 2,
      references: [
        { reference: expect.any(String), number: '525512345678' },
        { reference: expect.any(String), number: '525550000006' },
      ],
      credit: 4,
    });
    expect(await credit(a.apikey)).toBe(6);
    const row = await message(r.body.references[0].reference);
    expect(row).toMatchObject({
      channel: 'voice',
      price_units: toUnits(2),
      text: 'Hola, te llamamos de Acme Co. Tu código de verificación es: 4, 8, 1, 5. Repito: 4, 8, 1, 5. No compartas este código con nadie.',
    });
    expect(JSON.parse(row.meta!)).toEqual({ template: 'a', company: 'Acme Co.', code: '4815' });
    const campaign = await h.ctx.db.kysely
      .selectFrom('campaigns')
      .selectAll()
      .where('id', '=', row.campaign_id)
      .executeTakeFirstOrThrow();
    expect(campaign).toMatchObject({ source: 'voice', channel: 'voice', total: 2 });
    const failed = await eventually(
      async () =>
        (await message(r.body.references[1].reference)).stage === 2 ? message(r.body.references[1].reference) : null,
      15_000,
    );
    expect(failed).toMatchObject({ status: 'undelivered', dlr_code: 6 });
    const delivered = await eventually(
      async () =>
        (await message(r.body.references[0].reference)).stage === 2 ? message(r.body.references[0].reference) : null,
      15_000,
    );
    expect(delivered).toMatchObject({ status: 'delivered', dlr_code: 0 });
  });

  it('speaks a custom text with k, cleaned of everything but letters, digits, commas, periods and spaces', async () => {
    const a = await h.createAccount(10);
    const r = await send(a.apikey, {
      template: 'K',
      code: undefined,
      voice_message: '¡Hola! Tu cita es el 5/12, a las 10:30.\nGracias 🙂',
    });
    expect(r.body.code).toBe('sms_11');
    expect((await message(r.body.references[0].reference)).text).toBe('Hola Tu cita es el 512, a las 1030. Gracias');
  });

  it('reads templates b to j with and without a code', async () => {
    const a = await h.createAccount(100);
    for (const template of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j']) {
      const withCode = await send(a.apikey, { template, code: 'AB12' });
      expect((await message(withCode.body.references[0].reference)).text).toContain('A, B, 1, 2.');
      const without = await send(a.apikey, { template, code: undefined, company: 'Acme' });
      const text = (await message(without.body.references[0].reference)).text;
      expect(text.startsWith('Hola, te llamamos de Acme. ')).toBe(true);
      expect(text).not.toMatch(/es: /);
    }
  });

  it('charges the account its own voice price and returns campaignId with showCampaignId (body or query)', async () => {
    const a = await h.createAccount(10);
    await setPrice(h.ctx.db.kysely, a.id, 'voice', toUnits(0.75));
    const plain = await send(a.apikey, {});
    expect(plain.body.credit).toBe(0.75);
    expect(plain.body).not.toHaveProperty('campaignId');
    const inBody = await send(a.apikey, { showCampaignId: true, name: 'Recordatorios' });
    const row = await message(inBody.body.references[0].reference);
    expect(inBody.body.campaignId).toBe(row.campaign_id);
    const campaign = await h.ctx.db.kysely
      .selectFrom('campaigns')
      .select('name')
      .where('id', '=', row.campaign_id)
      .executeTakeFirstOrThrow();
    expect(campaign.name).toBe('Recordatorios');
    const inQuery = await h.post(
      '/voice/send?showCampaignId=true',
      { numbers: '5512345678', country_code: '52', template: 'j' },
      a.apikey,
    );
    expect(inQuery.body.campaignId).toEqual(expect.any(Number));
    expect(await credit(a.apikey)).toBe(10 - 3 * 0.75);
  });

  it('accepts form bodies', async () => {
    const a = await h.createAccount(10);
    const r = await h.request('POST', '/voice/send', {
      apikey: a.apikey,
      form: { numbers: '5512345678', country_code: '52', template: 'k', voice_message: 'Hola', sandbox: '0' },
    });
    expect(r.body).toMatchObject({ code: 'sms_11', total_messages: 1 });
  });

  it.each([
    ['numbers missing', { numbers: undefined }, 'sms_03'],
    ['numbers blank', { numbers: ' ' }, 'sms_03'],
    ['numbers as an object', { numbers: { a: 1 } }, 'sms_04'],
    ['a number of 9 digits', { numbers: '551234567' }, 'sms_04'],
    ['a number with letters', { numbers: '5512345678,55123x5678' }, 'sms_04'],
    ['a number with its country code', { numbers: '525512345678' }, 'sms_04'],
    ['an empty entry', { numbers: '5512345678,' }, 'sms_04'],
    ['501 numbers', { numbers: numbers(501) }, 'sms_15'],
    ['a repeated number', { numbers: '5512345678, 5512345678' }, 'sms_16'],
    ['country_code missing', { country_code: undefined }, 'sms_05'],
    ['country_code 1', { country_code: '1' }, 'sms_18'],
    ['template missing', { template: undefined }, 'voice_01'],
    ['template blank', { template: ' ' }, 'voice_01'],
    ['template l', { template: 'l' }, 'voice_02'],
    ['template ab', { template: 'ab' }, 'voice_02'],
    ['template as an array', { template: ['a'] }, 'voice_02'],
    ['code missing with a', { code: undefined }, 'voice_03'],
    ['code of 3', { code: '123' }, 'voice_04'],
    ['code of 12', { code: '123456789012' }, 'voice_04'],
    ['code with a symbol', { code: '12-34' }, 'voice_04'],
    ['code with k', { template: 'k', voice_message: 'Hola', code: '1234' }, 'voice_05'],
    ['company of 61 characters', { company: 'c'.repeat(61) }, 'voice_06'],
    ['voice_message missing with k', { template: 'k', code: undefined }, 'voice_07'],
    ['voice_message only symbols with k', { template: 'k', code: undefined, voice_message: '¡¿😀?!' }, 'voice_07'],
    ['voice_message of 161 with k', { template: 'k', code: undefined, voice_message: 'v'.repeat(161) }, 'voice_08'],
    ['voice_message huge with k', { template: 'k', code: undefined, voice_message: 'v '.repeat(200_000) }, 'voice_08'],
    ['voice_message with b', { template: 'b', voice_message: 'Hola' }, 'voice_09'],
    ['sandbox 2', { sandbox: 2 }, 'voice_10'],
    ['showCampaignId maybe', { showCampaignId: 'maybe' }, 'voice_11'],
    ['name of 101 characters', { name: 'n'.repeat(101) }, 'sms_06'],
    ['date malformed', { date: '2030-02-30 10:00:00' }, 'sms_21'],
    ['date without a time', { date: '2099-01-01' }, 'sms_21'],
    ['date in the past', { date: '2001-01-01 00:00:00' }, 'sms_20'],
  ])('refuses %s with 400 and charges nothing', async (_title, fields, code) => {
    const a = await h.createAccount(5);
    const r = await send(a.apikey, fields);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, status: 400, code });
    expect(await credit(a.apikey)).toBe(5);
    expect(await messageCount(a.id)).toBe(0);
  });

  it('accepts 500 numbers and 160-character messages, 4- and 11-character codes', async () => {
    const a = await h.createAccount(1000);
    const r = await send(a.apikey, { numbers: numbers(500), code: 'A1B2C3D4E5F' });
    expect(r.body).toMatchObject({ code: 'sms_11', total_messages: 500, credit: 1000 });
    expect(await credit(a.apikey)).toBe(0);
    await h.ctx.db.kysely
      .updateTable('accounts')
      .set({ credits: toUnits(10) })
      .where('id', '=', a.id)
      .execute();
    expect((await send(a.apikey, { code: 'abcd' })).body.code).toBe('sms_11');
    expect((await send(a.apikey, { template: 'k', code: undefined, voice_message: 'v'.repeat(160) })).body.code).toBe(
      'sms_11',
    );
    // The limit applies to what is spoken: removed characters do not count.
    expect(
      (await send(a.apikey, { template: 'k', code: undefined, voice_message: `${'v'.repeat(160)}!!!` })).body.code,
    ).toBe('sms_11');
  });

  it('refuses with sms_07 when the balance does not cover every call, leaving the balance unchanged', async () => {
    const a = await h.createAccount(3);
    const r = await send(a.apikey, { numbers: '5512345678,5512345679' });
    expect(r.body).toMatchObject({ success: false, status: 400, code: 'sms_07' });
    expect(await credit(a.apikey)).toBe(3);
    expect(await messageCount(a.id)).toBe(0);
  });

  it('never spends more than the balance under parallel sends', async () => {
    const a = await h.createAccount(20);
    const replies = await Promise.all(Array.from({ length: 20 }, () => send(a.apikey, {})));
    expect(replies.filter((r) => r.body.code === 'sms_11')).toHaveLength(10);
    expect(replies.filter((r) => r.body.code === 'sms_07')).toHaveLength(10);
    expect(await credit(a.apikey)).toBe(0);
    expect(await messageCount(a.id)).toBe(10);
  });

  it('sandbox: full validation, real references, nothing charged or delivered', async () => {
    const a = await h.createAccount(1);
    const r = await send(a.apikey, { sandbox: 1, numbers: '5512345678,5512345679' });
    expect(r.body).toMatchObject({ code: 'sms_11', total_messages: 2, credit: 0 });
    expect(await credit(a.apikey)).toBe(1);
    for (const { reference } of r.body.references)
      expect(await message(reference)).toMatchObject({ status: 'sandbox', sandbox: 1, price_units: 0 });
    expect((await send(a.apikey, { sandbox: 1, code: '1' })).body.code).toBe('voice_04');
  });

  it('sandbox: at most SANDBOX_DAILY_LIMIT calls per account per day (sms_17)', async () => {
    const a = await h.createAccount(10);
    expect((await send(a.apikey, { sandbox: 1, numbers: '5512345678,5512345679' })).body.code).toBe('sms_11');
    const over = await send(a.apikey, { sandbox: 1, numbers: '5512345678,5512345679' });
    expect(over.body).toMatchObject({ success: false, code: 'sms_17' });
    expect((await send(a.apikey, { sandbox: 1, numbers: '5512345678' })).body.code).toBe('sms_11');
    expect((await send(a.apikey, { sandbox: 1, numbers: '5512345678' })).body.code).toBe('sms_17');
    expect(await credit(a.apikey)).toBe(10);
  });

  it('counts sends against the per-account rate limit (429 rate_01)', async () => {
    const a = await h.createAccount(20);
    await h.ctx.db.kysely.updateTable('accounts').set({ rate_limit_per_sec: 2 }).where('id', '=', a.id).execute();
    const replies = await Promise.all(Array.from({ length: 4 }, () => send(a.apikey, {})));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(2);
    expect(replies.filter((r) => r.status === 429 && r.body.code === 'rate_01')).toHaveLength(2);
  });

  it('schedules a send for its date and dispatches it then, not before', async () => {
    const a = await h.createAccount(10);
    const at = Math.ceil((Date.now() + 2500) / 1000) * 1000;
    const r = await send(a.apikey, { date: formatLocal(at) });
    expect(r.body.code).toBe('sms_11');
    expect(await message(r.body.references[0].reference)).toMatchObject({ status: 'scheduled', scheduled_at: at });
    const sent = await eventually(async () => {
      const m = await message(r.body.references[0].reference);
      return m.sent_at !== null ? m : null;
    }, 15_000);
    expect(sent.sent_at).toBeGreaterThanOrEqual(at);
  });

  it('never answers 500 to hostile bodies', async () => {
    const a = await h.createAccount(5);
    for (const body of [
      [],
      'x',
      7,
      null,
      { numbers: 1e308, country_code: {}, template: 'a' },
      { numbers: '5512345678', country_code: 52, template: 'a', code: 4815 },
    ]) {
      const r = await h.request('POST', '/voice/send', {
        apikey: a.apikey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect([200, 400]).toContain(r.status);
    }
    expect(await credit(a.apikey)).toBe(3);
    expect((await h.post('/voice/send', {})).status).toBe(401);
    expect((await h.get('/openapi.json')).body.paths['/voice/send'].post).toBeDefined();
  });
});
