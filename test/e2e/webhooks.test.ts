import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../helpers/harness.js';
import { receiver, sendSms, eventsOf, attemptsOf, cli, settle } from '../helpers/webhook-delivery.js';

describeEngines('webhook delivery end to end', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50' } });
  });
  afterAll(() => h.close());

  async function account(url: string, method: 'GET' | 'POST' = 'POST') {
    const a = await h.createAccount(100);
    await h.ctx.db.kysely.updateTable('accounts').set({ webhook_method: method }).where('id', '=', a.id).execute();
    expect((await h.post('/webhook/add', { url, status: '1' }, a.apikey)).body.code).toBe('add_webhook_01');
    return a;
  }
  /** Registers the receiver, then forgets the registration check's GET. */
  async function accountFor(r: Awaited<ReturnType<typeof receiver>>, method: 'GET' | 'POST' = 'POST', suffix = '') {
    const a = await account(r.url + suffix, method);
    r.received.length = 0;
    return a;
  }

  it('POSTs a signed confirmation per message and a response per reply, each with the reference of its send', async () => {
    const r = await receiver();
    try {
      const a = await accountFor(r);
      const [delivered, unknown] = await sendSms(
        h,
        a.id,
        ['5512345678', '5550000006'],
        '{"order":"A-7","tag":"ñ & ="}',
      );
      await eventually(async () => r.deliveries().length >= 2, 15_000);
      const byRef = new Map(r.deliveries().map((d) => [d.params.reference, d]));
      const date = /^\d{14}$/;
      expect(byRef.get(delivered.reference)!.params).toEqual({
        type: 'confirmation',
        reference: delivered.reference,
        status: '0',
        number: '525512345678',
        date: expect.stringMatching(date),
        extra_params: '{"order":"A-7","tag":"ñ & ="}',
      });
      expect(byRef.get(unknown.reference)!.params).toMatchObject({
        type: 'confirmation',
        reference: unknown.reference,
        status: '6',
        number: '525550000006',
      });

      const reply = await h.post('/simulator/replies', { number: '5512345678', response: 'Sí, confirmo' }, a.apikey);
      expect(reply.body.reference).toBe(delivered.reference);
      await eventually(async () => r.deliveries().length >= 3, 15_000);
      const response = r.deliveries().find((d) => d.params.type === 'response')!;
      expect(response.params).toEqual({
        type: 'response',
        reference: delivered.reference,
        number: '525512345678',
        message: 'Hola',
        response: 'Sí, confirmo',
        send_date: expect.stringMatching(date),
        response_date: expect.stringMatching(date),
      });

      // Every delivery is a form POST preceded by a HEAD, and verifies as a Standard Webhooks receiver would.
      const { secret } = await cli(h.ctx, ['webhooks', 'secret', '--email', a.email]);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const wh = new Webhook(secret);
      for (const d of r.deliveries()) {
        expect(d.method).toBe('POST');
        expect(d.headers['content-type']).toBe('application/x-www-form-urlencoded');
        expect(() => wh.verify(d.body, d.headers as Record<string, string>, { jsonParse: false })).not.toThrow();
        expect(() => wh.verify(d.body + 'x', d.headers as Record<string, string>, { jsonParse: false })).toThrow();
      }
      expect(new Set(r.deliveries().map((d) => d.headers['webhook-id'])).size).toBe(3);
      expect(r.received.filter((x) => x.method === 'HEAD')).toHaveLength(3);
      // Deliveries may run in parallel, but each POST follows its own HEAD: no prefix has more POSTs than HEADs.
      let heads = 0;
      for (const x of r.received) {
        heads += x.method === 'HEAD' ? 1 : -1;
        expect(heads).toBeGreaterThanOrEqual(0);
      }
      // The receiver may see a POST a moment before the service records its 200.
      await eventually(async () => (await eventsOf(h, a.id)).every((e) => e.state === 'delivered'), 15_000);
      expect(await eventsOf(h, a.id)).toHaveLength(3);
    } finally {
      await r.stop();
    }
  });

  it('delivers the confirmation of POST /sms/send with the reference that send returned', async () => {
    const r = await receiver();
    try {
      const a = await accountFor(r);
      const sent = await h.post(
        '/sms/send',
        { numbers: '5550000002', message: 'Pedido listo', extra_params: '{"pedido":"99"}' },
        a.apikey,
      );
      expect(sent.body.code).toBe('sms_11');
      const [{ reference }] = sent.body.references;
      await eventually(async () => r.deliveries().length >= 1, 15_000);
      expect(r.deliveries()[0].params).toMatchObject({
        type: 'confirmation',
        reference,
        status: '2',
        number: '525550000002',
        extra_params: '{"pedido":"99"}',
      });
    } finally {
      await r.stop();
    }
  });

  it('GETs every field in the query string, signed over the query string', async () => {
    const r = await receiver();
    try {
      const a = await accountFor(r, 'GET', '?source=mensajero');
      const [ref] = await sendSms(h, a.id, ['5550000003'], '{"k":"v"}');
      await eventually(async () => r.deliveries().length >= 1, 15_000);
      await h.post('/simulator/replies', { number: '5550000003', response: 'STOP' }, a.apikey);
      await eventually(async () => r.deliveries().length >= 2, 15_000);
      const [confirmation, response] = r.deliveries();
      expect(confirmation.method).toBe('GET');
      expect(confirmation.body).toBe('');
      expect(confirmation.params).toEqual({
        source: 'mensajero',
        type: 'confirmation',
        reference: ref.reference,
        status: '3',
        number: '525550000003',
        date: expect.stringMatching(/^\d{14}$/),
        extra_params: '{"k":"v"}',
      });
      expect(response.params).toEqual({
        source: 'mensajero',
        type: 'response',
        reference: ref.reference,
        number: '525550000003',
        message: 'Hola',
        response: 'STOP',
        send_date: expect.any(String),
        response_date: expect.any(String),
      });
      const wh = new Webhook((await cli(h.ctx, ['webhooks', 'secret', '--email', a.email])).secret);
      for (const d of [confirmation, response])
        expect(() => wh.verify(d.query, d.headers as Record<string, string>, { jsonParse: false })).not.toThrow();
    } finally {
      await r.stop();
    }
  });

  it('sends an event to a receiver failing 3 times exactly once more, then never again, and logs every attempt', async () => {
    const r = await receiver((_req, n) => (n <= 3 ? 503 : 200));
    try {
      const a = await accountFor(r);
      const [ref] = await sendSms(h, a.id, ['5511112222']);
      const [event] = await eventually(async () => {
        const e = await eventsOf(h, a.id);
        return e[0]?.state === 'delivered' ? e : null;
      }, 15_000);
      await settle();
      expect(r.deliveries()).toHaveLength(4);
      expect(r.deliveries().every((d) => d.params.reference === ref.reference)).toBe(true);
      expect(new Set(r.deliveries().map((d) => d.headers['webhook-id'])).size).toBe(1);
      expect(event.attempts).toBe(4);
      expect((await attemptsOf(h, event.id)).map((x) => x.http_status)).toEqual([503, 503, 503, 200]);

      const listed = await cli(h.ctx, ['events', 'list', '--email', a.email]);
      expect(listed.events[0]).toMatchObject({
        id: event.id,
        reference: ref.reference,
        state: 'delivered',
        attempts: 4,
        last_status: 200,
      });
      expect(listed.events[0].log.map((x: { http_status: number }) => x.http_status)).toEqual([503, 503, 503, 200]);
      expect(listed.events[0].log[0]).toMatchObject({
        method: 'POST',
        error: 'answered 503',
        at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      });
    } finally {
      await r.stop();
    }
  });

  it('delivers every event to a receiver that was down for a while, once it is back', async () => {
    const r = await receiver();
    try {
      const a = await accountFor(r);
      await r.stop();
      const refs = await sendSms(h, a.id, ['5520000001', '5520000002', '5520000003', '5520000004', '5520000005']);
      await eventually(async () => {
        const log = await h.ctx.db.kysely
          .selectFrom('event_attempts')
          .select('event_id')
          .where('account_id', '=', a.id)
          .execute();
        return new Set(log.map((x) => x.event_id)).size === 5 && log.length >= 10;
      }, 15_000);
      expect(r.received).toHaveLength(0);
      await r.restart();
      await eventually(async () => (await eventsOf(h, a.id)).every((e) => e.state === 'delivered'), 15_000);
      await settle();
      const got = r
        .deliveries()
        .map((d) => d.params.reference)
        .sort();
      expect(got).toEqual(refs.map((x) => x.reference).sort());
      const errors = await h.ctx.db.kysely
        .selectFrom('event_attempts')
        .select('error')
        .where('account_id', '=', a.id)
        .where('http_status', 'is', null)
        .execute();
      expect(errors[0].error).toMatch(/ECONNREFUSED/);
    } finally {
      await r.stop();
    }
  });

  it('records events of a disabled webhook as not delivered and sends nothing; deleting cancels pending ones', async () => {
    let healthy = false;
    const r = await receiver(() => (healthy ? 200 : 500));
    try {
      const a = await accountFor(r);
      expect((await h.post('/webhook/status', { status: '0' }, a.apikey)).body.code).toBe('status_webhook_01');
      await sendSms(h, a.id, ['5530000001']);
      await eventually(async () => (await eventsOf(h, a.id)).length === 1, 15_000);
      await settle();
      expect((await eventsOf(h, a.id))[0].state).toBe('not_delivered');
      expect(r.deliveries()).toHaveLength(0);

      expect((await h.post('/webhook/status', { status: '1' }, a.apikey)).body.code).toBe('status_webhook_01');
      // The receiver keeps failing: the next event stays pending between retries.
      await sendSms(h, a.id, ['5530000002']);
      await eventually(async () => r.deliveries().length >= 1, 15_000);
      expect((await h.post('/webhook/delete', {}, a.apikey)).body.code).toBe('delete_webhook_01');
      const [, second] = await eventsOf(h, a.id);
      expect(second.state).toBe('cancelled');
      const seen = r.deliveries().length;
      await settle(600);
      expect(r.deliveries().length).toBeLessThanOrEqual(seen + 1); // at most the attempt already in flight
      expect((await eventsOf(h, a.id))[1].state).toBe('cancelled');

      // Registered again, the cancelled event can be replayed: it arrives once, with one job.
      healthy = true;
      expect((await h.post('/webhook/add', { url: r.url, status: '1' }, a.apikey)).body.code).toBe('add_webhook_01');
      r.received.length = 0;
      expect(await cli(h.ctx, ['events', 'redeliver', '--id', String(second.id)])).toMatchObject({
        id: second.id,
        state: 'pending',
      });
      await eventually(async () => (await eventsOf(h, a.id))[1].state === 'delivered', 15_000);
      await settle();
      expect(r.deliveries().filter((d) => d.params.reference === second.reference)).toHaveLength(1);
      expect(
        await h.ctx.db.kysely
          .selectFrom('jobs')
          .select('id')
          .where('unique_key', '=', `webhook-event:${second.id}`)
          .execute(),
      ).toHaveLength(0);
    } finally {
      await r.stop();
    }
  });
});
