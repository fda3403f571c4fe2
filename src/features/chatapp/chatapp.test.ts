import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeEngines,
  eventually,
  startHarness,
  type Harness,
  type TestAccount,
} from '../../../test/helpers/harness.js';
import { toUnits } from '../../accounts/credits.js';
import { setPrice } from '../../messaging/pricing.js';
import { formatLocal } from '../../lib/time.js';
import { createInstance, setInstanceStatus } from './store.js';

describeEngines('chat-app send', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { SIMULATOR_DLR_DELAY_MS: '10', SANDBOX_DAILY_LIMIT: '3' } });
  });
  afterAll(() => h.close());

  /** An account with credits and one active instance. */
  const setup = async (credits = 10): Promise<TestAccount & { instance: string }> => {
    const a = await h.createAccount(credits);
    const instance = await createInstance(h.ctx.db.kysely, a.id);
    return { ...a, instance: instance.instance_id };
  };
  const credit = async (key: string) => (await h.post('/credits/consult', {}, key)).body.credit;
  const message = (reference: string) =>
    h.ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
  const messageCount = async (accountId: number) =>
    (await h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', accountId).execute()).length;
  const send = (a: { apikey: string; instance: string }, fields: Record<string, unknown>) =>
    h.post('/chatapp/send', { instance_id: a.instance, number: '5512345678', message: 'Hola', ...fields }, a.apikey);

  it('sends a text message: whatsapp_21, credit, reference, charged at the chat-app price and delivered', async () => {
    const a = await setup(10);
    const r = await send(a, { message: 'Hola, ¿cómo estás? 👋' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      message: 'message sent',
      status: 200,
      code: 'whatsapp_21',
      credit: 0.5,
      reference: expect.any(String),
    });
    expect(await credit(a.apikey)).toBe(9.5);
    const row = await message(r.body.reference);
    expect(row).toMatchObject({
      channel: 'chatapp',
      number: '525512345678',
      country_code: '52',
      text: 'Hola, ¿cómo estás? 👋',
      sandbox: 0,
      price_units: toUnits(0.5),
    });
    expect(JSON.parse(row.meta!)).toEqual({ instance_id: a.instance, type: 'text' });
    const campaign = await h.ctx.db.kysely
      .selectFrom('campaigns')
      .selectAll()
      .where('id', '=', row.campaign_id)
      .executeTakeFirstOrThrow();
    expect(campaign).toMatchObject({ source: 'chatapp', channel: 'chatapp', total: 1 });
    const done = await eventually(
      async () => ((await message(r.body.reference)).stage === 2 ? message(r.body.reference) : null),
      15_000,
    );
    expect(done).toMatchObject({ status: 'delivered', dlr_code: 0 });
  });

  it('reports the simulated delivery status of 55500000NN numbers', async () => {
    const a = await setup();
    const r = await send(a, { number: '5550000006' });
    const done = await eventually(
      async () => ((await message(r.body.reference)).stage === 2 ? message(r.body.reference) : null),
      15_000,
    );
    expect(done).toMatchObject({ status: 'undelivered', dlr_code: 6 });
  });

  it('charges the account its own chat-app price', async () => {
    const a = await setup(10);
    await setPrice(h.ctx.db.kysely, a.id, 'chatapp', toUnits(0.25));
    expect((await send(a, {})).body.credit).toBe(0.25);
    expect(await credit(a.apikey)).toBe(9.75);
  });

  it('returns id (the message id) only when show_id is 1, in the body or the query', async () => {
    const a = await setup();
    const plain = await send(a, {});
    expect(plain.body).not.toHaveProperty('id');
    const inBody = await send(a, { show_id: 1 });
    expect(inBody.body.id).toBe((await message(inBody.body.reference)).id);
    const inQuery = await h.post(
      '/chatapp/send?show_id=1',
      { instance_id: a.instance, number: '5512345678', message: 'Hola' },
      a.apikey,
    );
    expect(inQuery.body.id).toBe((await message(inQuery.body.reference)).id);
    expect((await send(a, { show_id: '0' })).body).not.toHaveProperty('id');
    expect((await send(a, { show_id: 'yes' })).body.code).toBe('whatsapp_17');
  });

  it('accepts the GET form with query parameters and form bodies', async () => {
    const a = await setup();
    const q = new URLSearchParams({
      instance_id: a.instance,
      number: '5512345678',
      message: 'Hola GET',
      type: 'image',
      show_id: '1',
    });
    q.set('message', 'https://cdn.example.com/p.png');
    q.set('caption', 'Foto');
    const g = await h.get(`/chatapp/send?${q}`, a.apikey);
    expect(g.body).toMatchObject({ code: 'whatsapp_21', id: expect.any(Number) });
    expect(JSON.parse((await message(g.body.reference)).meta!)).toEqual({
      instance_id: a.instance,
      type: 'image',
      caption: 'Foto',
    });
    const missing = await h.get(`/chatapp/send?instance_id=${a.instance}&number=5512345678`, a.apikey);
    expect(missing.body.code).toBe('whatsapp_07');
    const form = await h.request('POST', '/chatapp/send', {
      apikey: a.apikey,
      form: { instance_id: a.instance, number: '5512345678', message: 'Hola form', find_country_code: '0' },
    });
    expect(form.body.code).toBe('whatsapp_21');
    expect((await message(form.body.reference)).text).toBe('Hola form');
  });

  it('sends each media type with a caption; the message is the URL', async () => {
    const a = await setup();
    const cases = [
      ['image', 'https://cdn.example.com/a.JPG'],
      ['video', 'https://cdn.example.com/a.mp4'],
      ['audio', 'https://cdn.example.com/a.ogg'],
      ['document', 'https://cdn.example.com/a.pdf'],
    ];
    for (const [type, url] of cases) {
      const r = await send(a, { type, message: url, caption: 'x'.repeat(1000) });
      expect(r.body.code).toBe('whatsapp_21');
      const row = await message(r.body.reference);
      expect(row.text).toBe(url);
      expect(JSON.parse(row.meta!)).toMatchObject({ type, caption: 'x'.repeat(1000) });
    }
  });

  it('takes the country code from the number with find_country_code 1', async () => {
    const a = await setup();
    const r = await send(a, { number: '525512345678', find_country_code: 1 });
    expect((await message(r.body.reference)).number).toBe('525512345678');
    expect((await send(a, { number: '5512345678', find_country_code: 1 })).body.code).toBe('whatsapp_05');
    expect((await send(a, { number: '15551234567', find_country_code: 1 })).body.code).toBe('whatsapp_05');
    expect((await send(a, { number: '445512345678', find_country_code: 1 })).body.code).toBe('whatsapp_06');
    expect((await send(a, { number: '5512345678', country_code: '+52' })).body.code).toBe('whatsapp_21');
  });

  it.each([
    ['instance_id missing', { instance_id: undefined }, 'whatsapp_01'],
    ['instance_id empty', { instance_id: '  ' }, 'whatsapp_01'],
    ['instance unknown', { instance_id: 'nope' }, 'whatsapp_02'],
    ['instance id huge', { instance_id: 'x'.repeat(100_000) }, 'whatsapp_02'],
    ['number missing', { number: undefined }, 'whatsapp_04'],
    ['number empty', { number: '' }, 'whatsapp_04'],
    ['number with 9 digits', { number: '551234567' }, 'whatsapp_05'],
    ['number with 11 digits', { number: '55123456789' }, 'whatsapp_05'],
    ['number with letters', { number: '55123456ab' }, 'whatsapp_05'],
    ['number with the country code', { number: '525512345678' }, 'whatsapp_05'],
    ['number as an array', { number: ['5512345678'] }, 'whatsapp_04'],
    ['country code 1', { country_code: '1' }, 'whatsapp_06'],
    ['country code 521', { country_code: 521 }, 'whatsapp_06'],
    ['message missing', { message: undefined }, 'whatsapp_07'],
    ['message blank', { message: '   ' }, 'whatsapp_07'],
    ['message an object', { message: { a: 1 } }, 'whatsapp_07'],
    ['message of 1001 characters', { message: 'a'.repeat(1001) }, 'whatsapp_08'],
    ['message huge', { message: 'a'.repeat(500_000) }, 'whatsapp_08'],
    ['type unknown', { type: 'sticker' }, 'whatsapp_09'],
    ['type a number', { type: 5 }, 'whatsapp_09'],
    ['media over http', { type: 'image', message: 'http://cdn.example.com/a.png' }, 'whatsapp_10'],
    ['media not a URL', { type: 'image', message: 'a.png' }, 'whatsapp_10'],
    ['media on a private address', { type: 'document', message: 'https://192.168.1.10/a.pdf' }, 'whatsapp_10'],
    ['media on localhost', { type: 'video', message: 'https://localhost/a.mp4' }, 'whatsapp_10'],
    ['media with the wrong extension', { type: 'video', message: 'https://cdn.example.com/a.png' }, 'whatsapp_11'],
    ['media without extension', { type: 'audio', message: 'https://cdn.example.com/audio' }, 'whatsapp_11'],
    ['media with a query string', { type: 'image', message: 'https://cdn.example.com/a.png?w=1' }, 'whatsapp_12'],
    [
      'caption of 1001 characters',
      { type: 'image', message: 'https://cdn.example.com/a.png', caption: 'c'.repeat(1001) },
      'whatsapp_13',
    ],
    ['caption with text', { caption: 'hola' }, 'whatsapp_14'],
    ['name of 101 characters', { name: 'n'.repeat(101) }, 'whatsapp_15'],
    ['find_country_code 2', { find_country_code: 2 }, 'whatsapp_16'],
    ['show_id 2', { show_id: '2' }, 'whatsapp_17'],
    ['sandbox 3', { sandbox: 3 }, 'whatsapp_18'],
    ['date malformed', { date: '2030-13-01 10:00:00' }, 'sms_21'],
    ['date not a date', { date: 'tomorrow' }, 'sms_21'],
    ['date without a time', { date: '2099-01-01' }, 'sms_21'],
    ['date in the past', { date: '2020-01-01 10:00:00' }, 'sms_20'],
    ['read_confirmation without url', { read_confirmation: { contact: 1 } }, 'read_confirmation_01'],
    ['read_confirmation not http', { read_confirmation: { url: 'javascript:alert(1)' } }, 'read_confirmation_01'],
  ])('refuses %s with 400 and charges nothing', async (_title, fields, code) => {
    const a = await setup(5);
    const r = await send(a, fields);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, status: 400, code });
    expect(await credit(a.apikey)).toBe(5);
    expect(await messageCount(a.id)).toBe(0);
  });

  it("refuses another account's instance as absent and an inactive instance with whatsapp_03", async () => {
    const a = await setup();
    const b = await setup();
    expect((await send({ apikey: a.apikey, instance: b.instance }, {})).body.code).toBe('whatsapp_02');
    await setInstanceStatus(h.ctx.db.kysely, a.id, a.instance, 'inactive');
    expect((await send(a, {})).body.code).toBe('whatsapp_03');
    await setInstanceStatus(h.ctx.db.kysely, a.id, a.instance, 'active');
    expect((await send(a, {})).body.code).toBe('whatsapp_21');
  });

  it('refuses with sms_07 when the balance does not cover it, leaving the balance unchanged', async () => {
    const a = await setup(0.4);
    const r = await send(a, {});
    expect(r.body).toMatchObject({ success: false, status: 400, code: 'sms_07' });
    expect(await credit(a.apikey)).toBe(0.4);
    expect(await messageCount(a.id)).toBe(0);
  });

  it('never spends more than the balance under parallel sends', async () => {
    const a = await setup(5);
    const replies = await Promise.all(Array.from({ length: 20 }, () => send(a, {})));
    expect(replies.filter((r) => r.body.code === 'whatsapp_21')).toHaveLength(10);
    expect(replies.filter((r) => r.body.code === 'sms_07')).toHaveLength(10);
    expect(await credit(a.apikey)).toBe(0);
    expect(await messageCount(a.id)).toBe(10);
  });

  it('never answers 500 to hostile bodies', async () => {
    const a = await setup();
    for (const body of [
      [],
      'text',
      42,
      null,
      { instance_id: { $ne: 1 } },
      { number: 1e308, message: true },
      { __proto__: { x: 1 }, constructor: 1 },
    ]) {
      const r = await h.request('POST', '/chatapp/send', {
        apikey: a.apikey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(r.status).toBe(400);
    }
    const bad = await h.request('POST', '/chatapp/send', {
      apikey: a.apikey,
      headers: { 'content-type': 'application/json' },
      body: '{"instance_id": ',
    });
    expect(bad.body.code).toBe('invalid_json');
    expect((await h.post('/chatapp/send', {})).status).toBe(401);
  });

  it('schedules a send for its date and dispatches it then, not before', async () => {
    const a = await setup();
    const at = Math.ceil((Date.now() + 2500) / 1000) * 1000;
    const r = await send(a, { date: formatLocal(at) });
    expect(r.body.code).toBe('whatsapp_21');
    const row = await message(r.body.reference);
    expect(row).toMatchObject({ status: 'scheduled', scheduled_at: at });
    expect(await credit(a.apikey)).toBe(9.5);
    const sent = await eventually(async () => {
      const m = await message(r.body.reference);
      return m.sent_at !== null ? m : null;
    }, 15_000);
    expect(sent.sent_at).toBeGreaterThanOrEqual(at);
  });

  it('sandbox: validates and records, charges and delivers nothing', async () => {
    const a = await setup(1);
    const r = await send(a, { sandbox: 1 });
    expect(r.body).toMatchObject({ code: 'whatsapp_21', credit: 0 });
    expect(await credit(a.apikey)).toBe(1);
    expect(await message(r.body.reference)).toMatchObject({ status: 'sandbox', sandbox: 1, price_units: 0 });
    expect((await send(a, { sandbox: 1, type: 'image', message: 'https://cdn.example.com/a.gif' })).body.code).toBe(
      'whatsapp_11',
    );
  });

  it('sandbox: at most SANDBOX_DAILY_LIMIT messages per account per day, also in parallel (sms_17)', async () => {
    const a = await setup(1);
    const replies = await Promise.all(Array.from({ length: 5 }, () => send(a, { sandbox: 1 })));
    expect(replies.filter((r) => r.body.code === 'whatsapp_21')).toHaveLength(3);
    const refused = replies.filter((r) => r.body.code === 'sms_17');
    expect(refused).toHaveLength(2);
    expect(refused[0].body.success).toBe(false);
    // Real sends are not counted against the sandbox limit.
    expect((await send(a, {})).body.code).toBe('whatsapp_21');
  });

  it('counts sends against the per-account rate limit (429 rate_01)', async () => {
    const a = await setup();
    await h.ctx.db.kysely.updateTable('accounts').set({ rate_limit_per_sec: 2 }).where('id', '=', a.id).execute();
    const replies = await Promise.all(Array.from({ length: 4 }, () => send(a, {})));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(2);
    expect(replies.filter((r) => r.status === 429 && r.body.code === 'rate_01')).toHaveLength(2);
  });

  it('appends a read-confirmation link to a text, or to the caption of media, and records the read', async () => {
    const a = await setup();
    const r = await send(a, {
      message: 'Promo',
      read_confirmation: { url: 'https://shop.example.com/promo', contact: 7 },
    });
    const row = await message(r.body.reference);
    const link = new RegExp(`^Promo\\n${h.config.publicBaseUrl}/r/([A-Za-z0-9_-]+)$`).exec(row.text);
    expect(link).not.toBeNull();
    const opened = await h.get(`/r/${link![1]}`);
    expect(opened.status).toBe(302);
    expect(opened.headers.location).toBe('https://shop.example.com/promo');
    const tracking = await h.ctx.db.kysely
      .selectFrom('read_trackings')
      .selectAll()
      .where('token', '=', link![1])
      .executeTakeFirstOrThrow();
    expect(tracking).toMatchObject({ message_id: row.id, contact_id: 7, reads: 1, account_id: a.id });

    const media = await send(a, {
      type: 'image',
      message: 'https://cdn.example.com/a.png',
      read_confirmation: '{"url":"https://shop.example.com/x"}',
    });
    const mediaRow = await message(media.body.reference);
    expect(mediaRow.text).toBe('https://cdn.example.com/a.png');
    expect(JSON.parse(mediaRow.meta!).caption).toMatch(new RegExp(`^${h.config.publicBaseUrl}/r/[A-Za-z0-9_-]+$`));
  });

  it('appears in /openapi.json', async () => {
    const doc = (await h.get('/openapi.json')).body;
    expect(doc.paths['/chatapp/send'].post).toBeDefined();
    expect(doc.paths['/chatapp/send'].get).toBeDefined();
  });
});
