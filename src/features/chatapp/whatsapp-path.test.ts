import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { createInstance } from './store.js';

describeEngines('/whatsapp/send (the path integrations call) and /v2/otp channel whatsapp', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const setup = async (credits = 10) => {
    const a = await h.createAccount(credits);
    return { ...a, instance: (await createInstance(h.ctx.db.kysely, a.id)).instance_id };
  };
  const message = (reference: string) =>
    h.ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
  const reply = {
    success: true,
    message: 'message sent',
    status: 200,
    code: 'whatsapp_21',
    credit: 0.5,
    reference: expect.any(String),
  };

  it('POST with a form body, POST with JSON and GET with query parameters answer like /chatapp/send', async () => {
    const a = await setup();
    const form = await h.request('POST', '/whatsapp/send', {
      apikey: a.apikey,
      form: {
        instance_id: a.instance,
        number: '5512345678',
        message: 'Hola',
        type: 'text',
        country_code: '52',
        source: 'mcp',
      },
    });
    expect(form.status).toBe(200);
    expect(form.body).toEqual(reply);
    expect(await message(form.body.reference)).toMatchObject({
      channel: 'chatapp',
      number: '525512345678',
      text: 'Hola',
    });

    const json = await h.post(
      '/whatsapp/send',
      {
        instance_id: a.instance,
        number: 5512345679,
        message: 'https://example.com/a.jpg',
        type: 'image',
        caption: 'Foto',
        country_code: 52,
      },
      a.apikey,
    );
    expect(json.body).toEqual(reply);
    expect(JSON.parse((await message(json.body.reference)).meta!)).toMatchObject({ type: 'image', caption: 'Foto' });

    const query = new URLSearchParams({ instance_id: a.instance, number: '5512345670', message: 'Hola GET' });
    const get = await h.get(`/whatsapp/send?${query}`, a.apikey);
    expect(get.body).toEqual(reply);
    query.set('number', '5512345671');
    const spec = await h.get(`/chatapp/send?${query}`, a.apikey);
    expect(Object.keys(spec.body).sort()).toEqual(Object.keys(get.body).sort());
    expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(8);
  });

  it('answers the same error codes and statuses', async () => {
    const a = await setup();
    for (const body of [
      { number: '5512345678', message: 'Hola' },
      { instance_id: a.instance, message: 'Hola' },
      { instance_id: a.instance, number: '5512345678', message: 'x', type: 'gif' },
      { instance_id: 'nope', number: '5512345678', message: 'Hola' },
    ]) {
      const [alias, spec] = await Promise.all([
        h.post('/whatsapp/send', body, a.apikey),
        h.post('/chatapp/send', body, a.apikey),
      ]);
      expect(alias.status).toBe(spec.status);
      expect(alias.body).toEqual(spec.body);
      expect(alias.body.success).toBe(false);
    }
    expect((await h.post('/whatsapp/send', {}, 'wrong')).status).toBe(401);
  });

  it('counts against the message-sending rate limit like /chatapp/send', async () => {
    const a = await setup();
    await h.ctx.db.kysely.updateTable('accounts').set({ rate_limit_per_sec: 2 }).where('id', '=', a.id).execute();
    const replies = await Promise.all(
      ['5512345601', '5512345602', '5512345603', '5512345604'].map((number) =>
        h.post('/whatsapp/send', { instance_id: a.instance, number, message: 'Hola' }, a.apikey),
      ),
    );
    expect(replies.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(2);
    expect(replies.find((r) => r.status === 429)!.body.code).toBe('rate_01');
  });

  it('/v2/otp takes channel "whatsapp" as the chat-app channel', async () => {
    const a = await setup();
    const r = await h.post(
      '/v2/otp',
      {
        phone_number: '5512345678',
        country_code: 52,
        channel: 'whatsapp',
        company: 'Acme',
        code_show: 1,
        source: 'mcp',
      },
      a.apikey,
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      action: 'created',
      message: expect.stringContaining('chatapp'),
      warning: expect.stringContaining('company ignored'),
    });
    const row = await h.ctx.db.kysely
      .selectFrom('messages')
      .select(['channel'])
      .where('account_id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(row.channel).toBe('chatapp');
    const form = await h.request('POST', '/v2/otp/verify', {
      apikey: a.apikey,
      form: { phone_number: '5512345678', country_code: '52', code: r.body.code },
    });
    expect(form.body.state).toBe('verified');
    expect(
      (
        await h.post(
          '/v2/otp',
          { phone_number: '5512345678', country_code: '52', channel: 'telegram', company: 'Acme' },
          a.apikey,
        )
      ).body.error,
    ).toBe('otp_invalid_channel');
  });
});
