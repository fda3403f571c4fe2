import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { startHttpServer } from '../../../test/helpers/http-server.js';
import { startWhatsappCloud } from '../../../test/helpers/whatsapp-cloud.js';
import { createInstance } from '../../features/chatapp/store.js';
import { routeToProvider } from '../../../test/helpers/providers.js';

// These wait on dispatch retries and webhook deliveries; CI runs them beside the crash suite, which loads both cores.
vi.setConfig({ testTimeout: 90_000 });

const SECRETS = { access_token: 'EAAG-test-token-123', app_secret: 'app-secret-abc', verify_token: 'verify-me' };

describeEngines('WhatsApp Cloud API connector', (engine) => {
  let h: Harness;
  let wa: Awaited<ReturnType<typeof startWhatsappCloud>>;
  let hooks: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    h = await startHarness(engine, {
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_BASE_MS: '50',
        DISPATCH_RETRY_MS: '10',
        CARRIER_POLL_MS: '100',
        PROVIDER_WEBHOOK_BODY_LIMIT_BYTES: '65536',
      },
    });
    wa = await startWhatsappCloud({
      accessToken: SECRETS.access_token,
      appSecret: SECRETS.app_secret,
      phoneNumberId: '106540352242922',
    });
    hooks = await startHttpServer(() => ({ status: 200, body: 'ok', type: 'text/plain' }));
    // The default chat-app route (the simulator) now goes to the Cloud API connector.
    await routeToProvider(h, {
      name: 'wa',
      type: 'whatsapp-cloud',
      channel: 'chatapp',
      options: { phoneNumberId: '106540352242922', graphUrl: wa.url, otpTemplate: 'codigo_verificacion' },
      secrets: SECRETS,
    });
  });
  afterAll(async () => {
    await h.close();
    await wa.stop();
    await hooks.stop();
  });

  const setup = async () => {
    const a = await h.createAccount(10);
    const instance = await createInstance(h.ctx.db.kysely, a.id);
    expect((await h.post('/webhook/add', { url: `${hooks.url}/hook/${a.id}`, status: '1' }, a.apikey)).body.code).toBe(
      'add_webhook_01',
    );
    return { ...a, instance: instance.instance_id };
  };
  const message = (reference: string) =>
    h.ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
  // Sent: the hand-off recorded (the connector names the carrier id on the message a moment before).
  const sent = (reference: string) =>
    eventually(async () => {
      const row = await message(reference);
      return row.stage >= 1 && row.carrier_id ? row : null;
    }, 40_000);
  const events = (accountId: number) =>
    hooks.seen
      .filter((r) => r.method === 'POST' && r.path === `/hook/${accountId}`)
      .map((r) => Object.fromEntries(new URLSearchParams(r.body)));
  const webhook = (body: string, signature?: string) =>
    h.request('POST', '/carriers/whatsapp-cloud/wa/webhook', {
      body,
      headers: { 'content-type': 'application/json', ...(signature ? { 'x-hub-signature-256': signature } : {}) },
    });
  const statusPayload = (id: string, status: string, extra: Record<string, unknown> = {}) =>
    wa.payload({ statuses: [{ id, status, timestamp: '1700000000', recipient_id: '525512345678', ...extra }] });

  it('sends text to the documented request shape; delivered and read webhooks update the status and reach the account webhook', async () => {
    const a = await setup();
    const r = await h.post(
      '/chatapp/send',
      { instance_id: a.instance, number: '5512345678', message: 'Hola 👋' },
      a.apikey,
    );
    expect(r.body.code).toBe('whatsapp_21');
    const m = await sent(r.body.reference);
    expect(m).toMatchObject({ carrier: 'wa', stage: 1, carrier_id: expect.stringMatching(/^wamid\./) });
    const request = wa.sends().find((s) => JSON.parse(s.body).text?.body === 'Hola 👋')!;
    expect(request.headers.authorization).toBe(`Bearer ${SECRETS.access_token}`);
    expect(JSON.parse(request.body)).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '525512345678',
      type: 'text',
      text: { preview_url: false, body: 'Hola 👋' },
    });

    const delivered = statusPayload(m.carrier_id!, 'delivered');
    // The provider redelivers: parallel copies apply once.
    const answers = await Promise.all([1, 2, 3, 4].map(() => webhook(delivered, wa.sign(delivered))));
    expect(answers.map((x) => x.status)).toEqual([200, 200, 200, 200]);
    expect(await message(r.body.reference)).toMatchObject({ stage: 2, status: 'delivered', dlr_code: 0 });
    const read = statusPayload(m.carrier_id!, 'read');
    expect((await webhook(read, wa.sign(read))).status).toBe(200);
    const tracking = await h.ctx.db.kysely
      .selectFrom('read_trackings')
      .selectAll()
      .where('message_id', '=', m.id)
      .executeTakeFirstOrThrow();
    expect(tracking).toMatchObject({ reads: 1, first_read_at: 1_700_000_000_000 });
    await eventually(async () => events(a.id).length >= 1, 40_000);
    expect(events(a.id)).toEqual([
      expect.objectContaining({
        type: 'confirmation',
        reference: r.body.reference,
        status: '0',
        number: '525512345678',
      }),
    ]);
  });

  it('a status posted before the send is answered waits for the message id, then applies (delivered and read)', async () => {
    const a = await setup();
    const early: Array<{ id: string; recorded: boolean; answers: number[] }> = [];
    wa.before.answer = async (id, to) => {
      if (to !== '525512347777') return;
      const recorded = await h.ctx.db.kysely
        .selectFrom('provider_message_ids')
        .select('message_id')
        .where('carrier', '=', 'wa')
        .where('carrier_id', '=', id)
        .executeTakeFirst();
      const now = String(Math.floor(Date.now() / 1000));
      const answers: number[] = [];
      for (const status of ['delivered', 'read']) {
        const body = statusPayload(id, status, { timestamp: now });
        answers.push((await webhook(body, wa.sign(body))).status);
      }
      early.push({ id, recorded: recorded !== undefined, answers });
    };
    try {
      const r = await h.post(
        '/chatapp/send',
        { instance_id: a.instance, number: '5512347777', message: 'Carrera' },
        a.apikey,
      );
      // The status may be applied before the dispatcher records the send: wait for both.
      const m = await eventually(async () => {
        const row = await message(r.body.reference);
        return row.stage === 2 && row.carrier_id ? row : null;
      }, 40_000);
      expect(early).toEqual([{ id: m.carrier_id, recorded: false, answers: [200, 200] }]);
      expect(m).toMatchObject({ carrier: 'wa', status: 'delivered', dlr_code: 0 });
      // The read is recorded right after the status is applied.
      const tracking = await eventually(
        () =>
          h.ctx.db.kysely.selectFrom('read_trackings').selectAll().where('message_id', '=', m.id).executeTakeFirst(),
        40_000,
      );
      expect(tracking.reads).toBe(1);
      // The provider redelivers the read: still one read.
      const again = statusPayload(m.carrier_id!, 'read');
      expect((await webhook(again, wa.sign(again))).status).toBe(200);
      expect(
        (
          await h.ctx.db.kysely
            .selectFrom('read_trackings')
            .select('reads')
            .where('message_id', '=', m.id)
            .executeTakeFirstOrThrow()
        ).reads,
      ).toBe(1);
      expect(
        await h.ctx.db.kysely
          .selectFrom('carrier_receipts')
          .select('id')
          .where('carrier', '=', 'wa')
          .where('carrier_id', '=', m.carrier_id!)
          .execute(),
      ).toEqual([]);
      await eventually(async () => events(a.id).length >= 1, 40_000);
      expect(events(a.id)).toEqual([
        expect.objectContaining({ type: 'confirmation', reference: r.body.reference, status: '0' }),
      ]);
    } finally {
      wa.before.answer = null;
    }
  });

  it('sends media by link with caption; failed with its error code maps to the spec status', async () => {
    const a = await setup();
    const r = await h.post(
      '/chatapp/send',
      {
        instance_id: a.instance,
        number: '5512345679',
        type: 'image',
        message: 'https://cdn.example.com/promo.jpg',
        caption: 'Promo',
      },
      a.apikey,
    );
    const m = await sent(r.body.reference);
    const request = wa.sends().find((s) => JSON.parse(s.body).to === '525512345679')!;
    expect(JSON.parse(request.body)).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '525512345679',
      type: 'image',
      image: { link: 'https://cdn.example.com/promo.jpg', caption: 'Promo' },
    });
    const failed = statusPayload(m.carrier_id!, 'failed', {
      errors: [{ code: 131047, title: 'Re-engagement message' }],
    });
    expect((await webhook(failed, wa.sign(failed))).status).toBe(200);
    expect(await message(r.body.reference)).toMatchObject({ stage: 2, status: 'undelivered', dlr_code: 4 });
    await eventually(async () => events(a.id).some((e) => e.status === '4'), 40_000);
  });

  it('an incoming message becomes a response event for the account that wrote to that number', async () => {
    const a = await setup();
    const r = await h.post(
      '/chatapp/send',
      { instance_id: a.instance, number: '5512340000', message: '¿Confirma su cita?' },
      a.apikey,
    );
    await sent(r.body.reference);
    const incoming = wa.payload({
      contacts: [{ profile: { name: 'Ana' }, wa_id: '525512340000' }],
      messages: [
        {
          from: '525512340000',
          id: 'wamid.IN1',
          timestamp: '1700000100',
          type: 'text',
          text: { body: 'Sí, confirmo' },
        },
      ],
    });
    await Promise.all([webhook(incoming, wa.sign(incoming)), webhook(incoming, wa.sign(incoming))]);
    await eventually(async () => events(a.id).some((e) => e.type === 'response'), 40_000);
    expect(events(a.id).filter((e) => e.type === 'response')).toEqual([
      expect.objectContaining({ reference: r.body.reference, response: 'Sí, confirmo', message: '¿Confirma su cita?' }),
    ]);
    expect(await h.ctx.db.kysely.selectFrom('replies').select('text').where('account_id', '=', a.id).execute()).toEqual(
      [{ text: 'Sí, confirmo' }],
    );
  });

  /**
   * A customer's message as Meta posts it; a reply quoting one of ours names it in `context`
   * (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples, "Text Messages" and "Reply").
   */
  const incomingMessage = (from: string, id: string, body: string, quoted?: string) =>
    wa.payload({
      contacts: [{ profile: { name: 'Ana' }, wa_id: from }],
      messages: [
        {
          ...(quoted ? { context: { from: '15550783881', id: quoted } } : {}),
          from,
          id,
          timestamp: String(Math.floor(Date.now() / 1000)),
          type: 'text',
          text: { body },
        },
      ],
    });
  const repliesTo = (number: string) =>
    h.ctx.db.kysely
      .selectFrom('replies')
      .select(['account_id', 'message_id', 'text'])
      .where('number', '=', number)
      .orderBy('id')
      .execute();

  it('a reply on the shared number goes to the message it quotes; otherwise to the latest one within the match window, and after it to nobody', async () => {
    const [a, b] = [await setup(), await setup()];
    const fromA = await sent(
      (
        await h.post(
          '/chatapp/send',
          { instance_id: a.instance, number: '5512349000', message: 'Su pedido de A' },
          a.apikey,
        )
      ).body.reference,
    );
    const fromB = await sent(
      (
        await h.post(
          '/chatapp/send',
          { instance_id: b.instance, number: '5512349000', message: 'Promoción de B' },
          b.apikey,
        )
      ).body.reference,
    );
    const deliverIncoming = async (body: string) => expect((await webhook(body, wa.sign(body))).status).toBe(200);

    // Quoting A's message (its wamid): A's, although B wrote to that number since.
    await deliverIncoming(incomingMessage('525512349000', 'wamid.Q1', 'Sí, el pedido', fromA.carrier_id!));
    // No quote: the latest message to that number through this connector, B's.
    await deliverIncoming(incomingMessage('525512349000', 'wamid.Q2', 'Gracias'));
    expect(await repliesTo('525512349000')).toEqual([
      { account_id: a.id, message_id: fromA.id, text: 'Sí, el pedido' },
      { account_id: b.id, message_id: fromB.id, text: 'Gracias' },
    ]);

    // Both sent longer ago than REPLY_MATCH_WINDOW_HOURS: an unquoted reply matches nobody and is kept as unmatched.
    const past = Date.now() - (h.config.REPLY_MATCH_WINDOW_HOURS + 1) * 3_600_000;
    await h.ctx.db.kysely
      .updateTable('messages')
      .set({ created_at: past, sent_at: past })
      .where('id', 'in', [fromA.id, fromB.id])
      .execute();
    await deliverIncoming(incomingMessage('525512349000', 'wamid.Q3', '¿Quién es?'));
    // A quote still names its message.
    await deliverIncoming(incomingMessage('525512349000', 'wamid.Q4', 'Lo recibí', fromA.carrier_id!));
    expect((await repliesTo('525512349000')).slice(2)).toEqual([
      { account_id: a.id, message_id: fromA.id, text: 'Lo recibí' },
    ]);
    const unmatched = await h.ctx.db.kysely
      .selectFrom('unmatched_replies')
      .select(['carrier', 'text'])
      .where('source', '=', '525512349000')
      .execute();
    expect(unmatched).toEqual([{ carrier: 'wa', text: '¿Quién es?' }]);
  });

  it('takes a signed 1,900-character message (over 4 KiB); a body over PROVIDER_WEBHOOK_BODY_LIMIT_BYTES gets 413 and stores nothing', async () => {
    const a = await setup();
    const m = await sent(
      (await h.post('/chatapp/send', { instance_id: a.instance, number: '5512349100', message: 'Cuéntenos' }, a.apikey))
        .body.reference,
    );
    // Meta escapes each accent as 6 bytes and each emoji as 12: 1,900 characters weigh about 4.5 KB.
    const long = '¡Gracias! 🙏🎉 Mañana pido más 😊 '.repeat(100).slice(0, 1900);
    const body = incomingMessage('525512349100', 'wamid.LONG1', long);
    expect(Buffer.byteLength(body)).toBeGreaterThan(4096);
    expect((await webhook(body, wa.sign(body))).status).toBe(200);
    expect(await repliesTo('525512349100')).toEqual([{ account_id: a.id, message_id: m.id, text: long }]);

    const huge = incomingMessage('525512349100', 'wamid.HUGE1', 'x'.repeat(70_000));
    const refused = await webhook(huge, wa.sign(huge));
    expect([refused.status, refused.body.code]).toEqual([413, 'body_too_large']);
    expect(await repliesTo('525512349100')).toHaveLength(1);
    expect(
      await h.ctx.db.kysely
        .selectFrom('provider_message_ids')
        .select('carrier_id')
        .where('carrier_id', '=', 'wamid.HUGE1')
        .execute(),
    ).toEqual([]);
  });

  it('refuses and records unsigned or wrongly signed webhooks and wrong verify tokens; answers the handshake', async () => {
    const body = statusPayload('wamid.forged', 'delivered');
    expect((await webhook(body)).status).toBe(401);
    const wrong = await webhook(body, wa.sign(body, 'not-the-secret'));
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ success: false, code: 'provider_02' });
    expect((await webhook('not json', wa.sign('not json'))).status).toBe(400);
    expect(
      (
        await h.request('POST', '/carriers/whatsapp-cloud/nobody/webhook', {
          body,
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(404);
    const ok = await h.get(
      '/carriers/whatsapp-cloud/wa/webhook?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=1158201444',
    );
    expect([ok.status, ok.body]).toEqual([200, 1158201444]);
    expect(
      (await h.get('/carriers/whatsapp-cloud/wa/webhook?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1'))
        .status,
    ).toBe(403);
    const rows = await h.ctx.db.kysely
      .selectFrom('provider_rejections')
      .select(['carrier', 'reason'])
      .orderBy('id')
      .execute();
    expect(rows.map((x) => x.reason)).toEqual([
      'unsigned webhook',
      'wrong X-Hub-Signature-256',
      'signed webhook that is not JSON',
      'webhook for an unknown connector',
      'verification with a wrong verify token',
    ]);
    expect(JSON.stringify(rows)).not.toContain(SECRETS.app_secret);
  });

  it('retries when the provider rate-limits or is down: sent once it answers, charged once; a permanent refusal is final', async () => {
    const a = await setup();
    wa.failures.push(
      { http: 429, code: 130429, message: 'Rate limit hit' },
      { http: 500, code: 131000, message: 'Something went wrong' },
    );
    const before = wa.sends().length;
    const r = await h.post(
      '/chatapp/send',
      { instance_id: a.instance, number: '5512341111', message: 'Reintento' },
      a.apikey,
    );
    const m = await sent(r.body.reference);
    expect(m).toMatchObject({ stage: 1, carrier: 'wa' });
    expect(
      wa
        .sends()
        .slice(before)
        .filter((s) => JSON.parse(s.body).to === '525512341111'),
    ).toHaveLength(3);
    expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(9.5);

    wa.failures.push({ http: 400, code: 131026, message: 'Message undeliverable' });
    const p = await h.post(
      '/chatapp/send',
      { instance_id: a.instance, number: '5512342222', message: 'No llega' },
      a.apikey,
    );
    const refused = await eventually(
      async () => ((await message(p.body.reference)).stage === 2 ? message(p.body.reference) : null),
      40_000,
    );
    expect(refused).toMatchObject({ dlr_code: 1, carrier: 'wa' });
  });

  it('sends OTP codes with the configured authentication template', async () => {
    const a = await setup();
    const r = await h.post('/v2/otp', { phone_number: '5512343333', country_code: '52', channel: 'chatapp' }, a.apikey);
    expect(r.status).toBeLessThan(300);
    const request = await eventually(
      async () => wa.sends().find((s) => JSON.parse(s.body).to === '525512343333'),
      40_000,
    );
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({
      type: 'template',
      template: { name: 'codigo_verificacion', language: { code: 'es_MX' } },
    });
    expect(body.template.components[0].parameters[0].text).toMatch(/^\S{4,12}$/);
  });
});
