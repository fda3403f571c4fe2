import { beforeAll, expect, it, vi } from 'vitest';
import { describeEngines, type Harness } from '../../../test/helpers/harness.js';
import { SECRETS, whatsappSuite } from '../../../test/helpers/whatsapp-cloud-suite.js';

// These wait on dispatch retries and webhook deliveries; CI runs them beside the crash suite, which loads both cores.
vi.setConfig({ testTimeout: 90_000 });

describeEngines('WhatsApp Cloud API connector', (engine) => {
  const { suite, setup, sent, webhook, statusPayload, incomingMessage, repliesTo } = whatsappSuite(engine);
  let h: Harness;
  let wa: typeof suite.wa;
  beforeAll(() => {
    ({ h, wa } = suite);
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
});
