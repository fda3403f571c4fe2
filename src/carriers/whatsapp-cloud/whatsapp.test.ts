import { beforeAll, expect, it, vi } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../../test/helpers/harness.js';
import { SECRETS, whatsappSuite } from '../../../test/helpers/whatsapp-cloud-suite.js';

// These wait on dispatch retries and webhook deliveries; CI runs them beside the crash suite, which loads both cores.
vi.setConfig({ testTimeout: 90_000 });

describeEngines('WhatsApp Cloud API connector', (engine) => {
  const { suite, setup, message, sent, events, webhook, statusPayload } = whatsappSuite(engine);
  let h: Harness;
  let wa: typeof suite.wa;
  beforeAll(() => {
    ({ h, wa } = suite);
  });

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
        return row.stage === 2 && row.carrier ? row : null;
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
