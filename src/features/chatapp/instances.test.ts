import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { startHttpServer } from '../../../test/helpers/http-server.js';
import { startWhatsappCloud } from '../../../test/helpers/whatsapp-cloud.js';
import { bindingFromOptions } from './cloud-cli.js';
import { saveBinding } from './instances.js';
import { createInstance, findInstance } from './store.js';
import { routeToProvider, secretLines } from '../../../test/helpers/providers.js';

// These wait on dispatch retries and webhook deliveries; CI runs them beside the crash suite, which loads both cores.
vi.setConfig({ testTimeout: 90_000 });

const SHARED = { access_token: 'EAAG-shared-token', app_secret: 'shared-app-secret', verify_token: 'shared-verify' };
const OWN = { access_token: 'EAAG-own-token', app_secret: 'own-app-secret', verify_token: 'own-verify' };

describeEngines('chat-app instances bound to their own Cloud API number', (engine) => {
  let h: Harness;
  let shared: Awaited<ReturnType<typeof startWhatsappCloud>>;
  let own: Awaited<ReturnType<typeof startWhatsappCloud>>;
  let hooks: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    h = await startHarness(engine, {
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_BASE_MS: '50',
        DISPATCH_RETRY_MS: '10',
        CARRIER_POLL_MS: '100',
      },
    });
    shared = await startWhatsappCloud({
      accessToken: SHARED.access_token,
      appSecret: SHARED.app_secret,
      phoneNumberId: '100000000000001',
    });
    own = await startWhatsappCloud({
      accessToken: OWN.access_token,
      appSecret: OWN.app_secret,
      phoneNumberId: '200000000000002',
    });
    hooks = await startHttpServer(() => ({ status: 200, body: 'ok', type: 'text/plain' }));
    // The operator's shared number: a connector on the default chat-app route.
    await routeToProvider(h, {
      name: 'wa',
      type: 'whatsapp-cloud',
      channel: 'chatapp',
      options: { phoneNumberId: '100000000000001', graphUrl: shared.url, otpTemplate: 'shared_template' },
      secrets: SHARED,
    });
  });
  afterAll(async () => {
    await h.close();
    await shared.stop();
    await own.stop();
    await hooks.stop();
  });

  /** An account with two instances, the first bound to its own number the way `chatapp-instances bind` does. */
  const setup = async () => {
    const a = await h.createAccount(10);
    const bound = await createInstance(h.ctx.db.kysely, a.id);
    const routed = await createInstance(h.ctx.db.kysely, a.id);
    const options = {
      cloudPhoneNumberId: '200000000000002',
      cloudGraphUrl: own.url,
      cloudOtpTemplate: 'own_template',
      cloudOtpLanguage: 'es',
      cloudSecrets: '-',
    };
    // One number, one instance: the previous test's account gives it up first.
    const previous = await h.ctx.db.kysely
      .selectFrom('chatapp_instances')
      .selectAll()
      .where('cloud_settings', 'is not', null)
      .execute();
    for (const p of previous) await saveBinding(h.ctx.db.kysely, p, null);
    await saveBinding(h.ctx.db.kysely, bound, bindingFromOptions(h.ctx, options, undefined, secretLines(OWN)));
    await h.ctx.carriers.manager.refreshNow();
    expect((await h.post('/webhook/add', { url: `${hooks.url}/hook/${a.id}`, status: '1' }, a.apikey)).body.code).toBe(
      'add_webhook_01',
    );
    return { ...a, bound: bound.instance_id, routed: routed.instance_id };
  };
  const message = (reference: string) =>
    h.ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
  const sent = (reference: string) =>
    eventually(async () => {
      const row = await message(reference);
      return row.stage >= 1 && row.carrier_id ? row : null;
    }, 40_000);
  const events = (accountId: number) =>
    hooks.seen
      .filter((r) => r.method === 'POST' && r.path === `/hook/${accountId}`)
      .map((r) => Object.fromEntries(new URLSearchParams(r.body)));
  const webhook = (instance: string, body: string, signature?: string) =>
    h.request('POST', `/chatapp/instances/${instance}/webhook`, {
      body,
      headers: { 'content-type': 'application/json', ...(signature ? { 'x-hub-signature-256': signature } : {}) },
    });
  const to = (server: typeof own, number: string) => server.sends().filter((s) => JSON.parse(s.body).to === number);

  it('a send naming the bound instance leaves through its number; its other instance keeps the routes; its webhook applies statuses', async () => {
    const a = await setup();
    const r = await h.post(
      '/chatapp/send',
      { instance_id: a.bound, number: '5511110001', message: 'Por su número' },
      a.apikey,
    );
    expect(r.body.code).toBe('whatsapp_21');
    const m = await sent(r.body.reference);
    expect(m.carrier).toBe(`instance:${a.bound}`);
    expect(to(own, '525511110001').map((s) => s.headers.authorization)).toEqual([`Bearer ${OWN.access_token}`]);
    expect(to(shared, '525511110001')).toEqual([]);

    const other = await h.post(
      '/chatapp/send',
      { instance_id: a.routed, number: '5511110002', message: 'Por la ruta' },
      a.apikey,
    );
    expect((await sent(other.body.reference)).carrier).toBe('wa');
    expect(to(shared, '525511110002')).toHaveLength(1);
    expect(to(own, '525511110002')).toEqual([]);

    const delivered = own.payload({
      statuses: [
        {
          id: m.carrier_id,
          status: 'delivered',
          timestamp: String(Math.floor(Date.now() / 1000)),
          recipient_id: '525511110001',
        },
      ],
    });
    expect((await webhook(a.bound, delivered, own.sign(delivered))).status).toBe(200);
    expect(await message(r.body.reference)).toMatchObject({ stage: 2, status: 'delivered', dlr_code: 0 });
    await eventually(async () => events(a.id).some((e) => e.reference === r.body.reference), 40_000);
    expect(events(a.id).filter((e) => e.reference === r.body.reference)).toEqual([
      expect.objectContaining({ type: 'confirmation', status: '0' }),
    ]);

    // An incoming message to that number answers the account.
    const incoming = own.payload({
      messages: [
        {
          from: '525511110001',
          id: 'wamid.OWN-IN-1',
          timestamp: '1700000100',
          type: 'text',
          text: { body: 'Recibido' },
        },
      ],
    });
    expect((await webhook(a.bound, incoming, own.sign(incoming))).status).toBe(200);
    await eventually(async () => events(a.id).some((e) => e.type === 'response'), 40_000);
    expect(events(a.id).filter((e) => e.type === 'response')).toEqual([
      expect.objectContaining({ reference: r.body.reference, response: 'Recibido' }),
    ]);
  });

  it("the instance's webhook takes a signed 1,900-character message (over 4 KiB) and answers the instance's account", async () => {
    const a = await setup();
    const r = await h.post(
      '/chatapp/send',
      { instance_id: a.bound, number: '5511110009', message: '¿Algún comentario?' },
      a.apikey,
    );
    const m = await sent(r.body.reference);
    const long = 'Sí, llegó 🙏🎉 ¡gracias! 😊 '.repeat(100).slice(0, 1900);
    const incoming = own.payload({
      messages: [
        {
          from: '525511110009',
          id: 'wamid.OWN-LONG-1',
          timestamp: String(Math.floor(Date.now() / 1000)),
          type: 'text',
          text: { body: long },
        },
      ],
    });
    expect(Buffer.byteLength(incoming)).toBeGreaterThan(4096);
    expect((await webhook(a.bound, incoming, own.sign(incoming))).status).toBe(200);
    expect(
      await h.ctx.db.kysely
        .selectFrom('replies')
        .select(['account_id', 'message_id', 'text'])
        .where('number', '=', '525511110009')
        .execute(),
    ).toEqual([{ account_id: a.id, message_id: m.id, text: long }]);
  });

  it("the instance's webhook is verified with its own app secret and verify token; others are refused and recorded", async () => {
    const a = await setup();
    const body = own.payload({ statuses: [{ id: 'wamid.forged', status: 'delivered', timestamp: '1700000000' }] });
    expect((await webhook(a.bound, body)).status).toBe(401);
    // Signed with the shared number's secret: another app's, not this instance's.
    const wrong = await webhook(a.bound, body, own.sign(body, SHARED.app_secret));
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ success: false, code: 'provider_02' });
    expect((await webhook(a.routed, body, own.sign(body))).status).toBe(404);
    const ok = await h.get(
      `/chatapp/instances/${a.bound}/webhook?hub.mode=subscribe&hub.verify_token=${OWN.verify_token}&hub.challenge=8811`,
    );
    expect([ok.status, ok.body]).toEqual([200, 8811]);
    expect(
      (
        await h.get(
          `/chatapp/instances/${a.bound}/webhook?hub.mode=subscribe&hub.verify_token=${SHARED.verify_token}&hub.challenge=1`,
        )
      ).status,
    ).toBe(403);
    const rows = await h.ctx.db.kysely
      .selectFrom('provider_rejections')
      .select(['carrier', 'reason'])
      .where('carrier', 'like', 'instance:%')
      .orderBy('id')
      .execute();
    expect(rows.slice(-4)).toEqual([
      { carrier: `instance:${a.bound}`, reason: 'unsigned webhook' },
      { carrier: `instance:${a.bound}`, reason: 'wrong X-Hub-Signature-256' },
      { carrier: `instance:${a.routed}`, reason: 'webhook for an unknown instance' },
      { carrier: `instance:${a.bound}`, reason: 'verification with a wrong verify token' },
    ]);
    expect(JSON.stringify(rows)).not.toContain(OWN.app_secret);
  });

  it("an OTP over chat-app (no instance named) leaves through the account's bound instance with its template; unbound, the routes apply again", async () => {
    const a = await setup();
    const r = await h.post('/v2/otp', { phone_number: '5511110003', country_code: '52', channel: 'chatapp' }, a.apikey);
    expect(r.status).toBeLessThan(300);
    const request = await eventually(async () => to(own, '525511110003')[0], 40_000);
    expect(JSON.parse(request.body)).toMatchObject({
      type: 'template',
      template: { name: 'own_template', language: { code: 'es' } },
    });
    expect(to(shared, '525511110003')).toEqual([]);

    await saveBinding(h.ctx.db.kysely, (await findInstance(h.ctx.db.kysely, a.id, a.bound))!, null);
    await h.ctx.carriers.manager.refreshNow();
    const after = await h.post(
      '/chatapp/send',
      { instance_id: a.bound, number: '5511110004', message: 'Ya sin número propio' },
      a.apikey,
    );
    expect((await sent(after.body.reference)).carrier).toBe('wa');
    expect(to(own, '525511110004')).toEqual([]);
  });
});
