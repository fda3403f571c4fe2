import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { sendTools } from '../../../test/helpers/sms-send.js';
import { formatLocal } from '../../lib/time.js';
import { setPrice } from '../../messaging/pricing.js';
import { toUnits } from '../../accounts/credits.js';
import { upsertSender, importLandlines } from './store.js';

describeEngines('POST /sms/send', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const { credit, message } = sendTools(() => h);

  it('sends, charges and reports each delivery status (5550000006 reaches status 6)', async () => {
    const a = await h.createAccount(10);
    const r = await h.post(
      '/sms/send',
      { numbers: '5550000006,5512345678', message: 'Hola', extra_params: '{"order":"7"}' },
      a.apikey,
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      message: 'sent_messages',
      status: 200,
      code: 'sms_11',
      total_messages: 2,
      credit: 2,
    });
    expect(r.body.campaignId).toBeUndefined();
    expect(r.body.references.map((x: { number: string }) => x.number)).toEqual(['525550000006', '525512345678']);
    expect(await credit(a.apikey)).toBe(8);
    const [failed, delivered] = r.body.references.map((x: { reference: string }) => x.reference);
    expect(
      await eventually(async () => ((await message(failed)).stage === 2 ? message(failed) : null), 15_000),
    ).toMatchObject({ dlr_code: 6, status: 'undelivered', extra_params: '{"order":"7"}' });
    expect(
      await eventually(async () => ((await message(delivered)).stage === 2 ? message(delivered) : null), 15_000),
    ).toMatchObject({ dlr_code: 0, status: 'delivered' });
    const event = await h.ctx.db.kysely
      .selectFrom('events')
      .selectAll()
      .where('reference', '=', failed)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(event.payload)).toMatchObject({
      type: 'confirmation',
      status: '6',
      extra_params: '{"order":"7"}',
    });
  });

  it('transliterates to GSM-7 and keeps what GSM-7 has', async () => {
    const a = await h.createAccount(10);
    const r = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: '“Canción” para Ñoño — ¿sí? ¡Ya! 5€ {x}' },
      a.apikey,
    );
    expect(r.body.code).toBe('sms_11');
    expect((await message(r.body.references[0].reference)).text).toBe('"Cancion" para Ñoño - ¿si? ¡Ya! 5€ {x}');
    // 160 after transliteration: 160 accented letters fit, 80 extension characters fit.
    expect((await h.post('/sms/send', { numbers: '5512345679', message: 'á'.repeat(160) }, a.apikey)).body.code).toBe(
      'sms_11',
    );
    expect((await h.post('/sms/send', { numbers: '5512345679', message: '€'.repeat(80) }, a.apikey)).body.code).toBe(
      'sms_11',
    );
  });

  it('shows campaignId when showCampaignId is true, in the body or the query', async () => {
    const a = await h.createAccount(10);
    const inBody = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: 'Hola', showCampaignId: true, name: 'Promo julio' },
      a.apikey,
    );
    expect(inBody.body.campaignId).toEqual(expect.any(Number));
    const campaign = await h.ctx.db.kysely
      .selectFrom('campaigns')
      .selectAll()
      .where('id', '=', inBody.body.campaignId)
      .executeTakeFirstOrThrow();
    expect(campaign).toMatchObject({ account_id: a.id, name: 'Promo julio', total: 1, channel: 'sms' });
    const inQuery = await h.post('/sms/send?showCampaignId=1', { numbers: '5512345678', message: 'Hola' }, a.apikey);
    expect(inQuery.body.campaignId).toBe(inBody.body.campaignId + 1);
    const generated = await h.ctx.db.kysely
      .selectFrom('campaigns')
      .select('name')
      .where('id', '=', inQuery.body.campaignId)
      .executeTakeFirstOrThrow();
    expect(generated.name).toMatch(/^SMS \d{4}-\d{2}-\d{2} /);
  });

  it('sends with the GET form', async () => {
    const a = await h.createAccount(10);
    const r = await h.get('/sms/send?numbers=5512345678,5587654321&message=Hola%20GET&showCampaignId=true', a.apikey);
    expect(r.body).toMatchObject({ code: 'sms_11', total_messages: 2, credit: 2, campaignId: expect.any(Number) });
  });

  it('splits numbers with their country code under find_country_code 1', async () => {
    const a = await h.createAccount(10);
    const r = await h.post(
      '/sms/send',
      { numbers: '525512345678,12025550123,573001234567', message: 'Hola', find_country_code: '1' },
      a.apikey,
    );
    expect(r.body.code).toBe('sms_11');
    const rows = await h.ctx.db.kysely
      .selectFrom('messages')
      .select(['country_code', 'number'])
      .where('account_id', '=', a.id)
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { country_code: '52', number: '525512345678' },
      { country_code: '1', number: '12025550123' },
      { country_code: '57', number: '573001234567' },
    ]);
    const us = await h.post('/sms/send', { numbers: '2025550123', message: 'Hi', country_code: 1 }, a.apikey);
    expect(us.body.references[0].number).toBe('12025550123');
  });

  it('uses a registered sender and falls back to the default for an unregistered one', async () => {
    const a = await h.createAccount(10);
    await upsertSender(h.ctx.db.kysely, a.id, 'TIENDA', false);
    const registered = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: 'Hola', sender: 'TIENDA' },
      a.apikey,
    );
    const unknown = await h.post('/sms/send', { numbers: '5512345678', message: 'Hola', sender: 'OTRA' }, a.apikey);
    expect((await message(registered.body.references[0].reference)).sender).toBe('TIENDA');
    expect((await message(unknown.body.references[0].reference)).sender).toBeNull();
  });

  it('sends RCS with a linked sender at the RCS price, and flash SMS', async () => {
    const a = await h.createAccount(10);
    await upsertSender(h.ctx.db.kysely, a.id, 'MARCA', true);
    const rcs = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: 'Hola', channel: 2, sender: 'MARCA' },
      a.apikey,
    );
    expect(rcs.body).toMatchObject({ code: 'sms_11', credit: 1.5 });
    expect(await message(rcs.body.references[0].reference)).toMatchObject({ channel: 'rcs', sender: 'MARCA' });
    const flash = await h.post('/sms/send', { numbers: '5512345678', message: 'Hola', flash: '1' }, a.apikey);
    expect((await message(flash.body.references[0].reference)).flash).toBe(1);
    expect(await credit(a.apikey)).toBe(7.5);
  });

  it('charges the account price per channel', async () => {
    const a = await h.createAccount(10);
    await setPrice(h.ctx.db.kysely, a.id, 'sms', toUnits(0.25));
    const r = await h.post('/sms/send', { numbers: '5512345678,5587654321', message: 'Hola' }, a.apikey);
    expect(r.body.credit).toBe(0.5);
    expect(await credit(a.apikey)).toBe(9.5);
  });

  it('replaces the one URL with a short link that redirects with 302 and counts clicks', async () => {
    const a = await h.createAccount(10);
    const r = await h.post(
      '/sms/send',
      { numbers: '5512345678,5587654321', message: 'Oferta: https://tienda.example/ofertas?id=ñ7 hoy', shorten_url: 1 },
      a.apikey,
    );
    expect(r.body.code).toBe('sms_11');
    const text = (await message(r.body.references[0].reference)).text;
    const match = /^Oferta: (http:\/\/\S+\/s\/([\w-]+)) hoy$/.exec(text);
    expect(match).not.toBeNull();
    const path = new URL(match![1]).pathname;
    const click = await h.get(path);
    expect(click.status).toBe(302);
    expect(click.headers.location).toBe('https://tienda.example/ofertas?id=%C3%B17');
    await Promise.all([h.get(path), h.get(path)]);
    const link = await h.ctx.db.kysely
      .selectFrom('short_links')
      .selectAll()
      .where('code', '=', match![2])
      .executeTakeFirstOrThrow();
    expect(link.clicks).toBe(3);
    expect((await h.get('/s/unknown')).status).toBe(404);
    expect((await h.get('/s/%27%3B--')).status).toBe(404);
  });

  it('counts the short link toward the 160 characters', async () => {
    const a = await h.createAccount(10);
    const r = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: `${'x'.repeat(140)} https://a.example/${'y'.repeat(50)}`, shorten_url: 1 },
      a.apikey,
    );
    expect(r.body.code).toBe('sms_02');
    const fits = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: `${'x'.repeat(100)} https://a.example/${'y'.repeat(50)}`, shorten_url: 1 },
      a.apikey,
    );
    expect(fits.body.code).toBe('sms_11');
  });

  it('appends a read-confirmation link per message and records its reads', async () => {
    const a = await h.createAccount(10);
    const r = await h.post(
      '/sms/send',
      {
        numbers: '5512345678,5587654321',
        message: 'Hola',
        read_confirmation: { url: 'https://tienda.example/leido', contact: 42 },
      },
      a.apikey,
    );
    expect(r.body.code).toBe('sms_11');
    const [m1, m2] = await Promise.all(r.body.references.map((x: { reference: string }) => message(x.reference)));
    const link1 = /^Hola (\S+)$/.exec(m1.text)![1];
    expect(link1).not.toBe(/^Hola (\S+)$/.exec(m2.text)![1]);
    const open = await h.get(new URL(link1).pathname);
    expect(open).toMatchObject({
      status: 302,
      headers: expect.objectContaining({ location: 'https://tienda.example/leido' }),
    });
    const tracking = await h.ctx.db.kysely
      .selectFrom('read_trackings')
      .selectAll()
      .where('message_id', '=', m1.id)
      .executeTakeFirstOrThrow();
    expect(tracking).toMatchObject({ reads: 1, contact_id: 42 });
    // The link is part of what is sent: it counts toward 160.
    expect(
      (
        await h.post(
          '/sms/send',
          { numbers: '5512345678', message: 'x'.repeat(150), read_confirmation: { url: 'https://a.example' } },
          a.apikey,
        )
      ).body.code,
    ).toBe('sms_02');
  });

  it('accepts read_confirmation and extra_params as JSON strings in a form body', async () => {
    const a = await h.createAccount(10);
    const r = await h.request('POST', '/sms/send', {
      apikey: a.apikey,
      form: {
        numbers: '5512345678',
        message: 'Hola',
        read_confirmation: '{"url":"https://a.example/x"}',
        extra_params: '{"id":"9"}',
      },
    });
    expect(r.body.code).toBe('sms_11');
    expect((await message(r.body.references[0].reference)).extra_params).toBe('{"id":"9"}');
  });

  it('dispatches a scheduled send at its time and not before', async () => {
    const a = await h.createAccount(10);
    const at = Math.ceil((Date.now() + 1500) / 1000) * 1000;
    const r = await h.post('/sms/send', { numbers: '5512345678', message: 'Luego', date: formatLocal(at) }, a.apikey);
    expect(r.body.code).toBe('sms_11');
    expect(await credit(a.apikey)).toBe(9);
    h.ctx.worker.nudge();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = await message(r.body.references[0].reference);
    expect(before).toMatchObject({ status: 'scheduled', scheduled_at: at, sent_at: null });
    const sent = await eventually(async () => {
      const m = await message(r.body.references[0].reference);
      return m.sent_at ? m : null;
    }, 15_000);
    expect(sent.sent_at!).toBeGreaterThanOrEqual(at);
  });

  it('answers sms_19 when the only number is a landline of the imported plan, and still sends it', async () => {
    const a = await h.createAccount(10);
    const before = await h.post('/sms/send', { numbers: '3312345678', message: 'Hola' }, a.apikey);
    expect(before.body.code).toBe('sms_11');
    await importLandlines(
      h.ctx.db.kysely,
      [{ countryCode: '52', prefix: '331234', description: 'Guadalajara fijo' }],
      false,
    );
    const one = await h.post('/sms/send', { numbers: '3312345678', message: 'Hola' }, a.apikey);
    expect(one.body).toMatchObject({ success: true, code: 'sms_19', total_messages: 1 });
    expect((await message(one.body.references[0].reference)).status).not.toBe('sandbox');
    const two = await h.post('/sms/send', { numbers: '3312345678,5512345678', message: 'Hola' }, a.apikey);
    expect(two.body.code).toBe('sms_11');
    await h.ctx.db.kysely.deleteFrom('landline_prefixes').execute();
  });

  it('tells each of concurrent single sends whether it went to a landline', async () => {
    const a = await h.createAccount(20);
    await importLandlines(
      h.ctx.db.kysely,
      [
        { countryCode: '52', prefix: '331234', description: null },
        { countryCode: '52', prefix: '8112', description: null },
      ],
      false,
    );
    const numbers = ['3312345678', '5512345678', '8112345678', '3312399999', '8113345678', '3312340000'];
    const sent = await Promise.all(numbers.map((n) => h.post('/sms/send', { numbers: n, message: 'Hola' }, a.apikey)));
    expect(sent.map((r) => r.body.code)).toEqual(['sms_19', 'sms_11', 'sms_19', 'sms_11', 'sms_11', 'sms_19']);
    await h.ctx.db.kysely.deleteFrom('landline_prefixes').execute();
  });
});
