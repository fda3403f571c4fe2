import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, dropSchema, eventually, startHarness, testConfig, type EngineName, type Harness } from '../helpers/harness.js';
import { startService, type RunningService } from '../../src/cli/serve.js';
import { insertAccount } from '../../src/accounts/store.js';
import { toUnits } from '../../src/accounts/credits.js';
import { submitMessages } from '../../src/messaging/submit.js';
import { webhookCommands } from '../../src/webhooks/cli.js';
import type { AppContext } from '../../src/context.js';
import { runCommands } from '../helpers/cli.js';

/** A real webhook receiver on 127.0.0.1. `answer` picks the status of each GET or POST; HEAD always gets 200. */
interface Received {
  method: string;
  path: string;
  query: string;
  headers: IncomingHttpHeaders;
  body: string;
  params: Record<string, string>;
}

async function receiver(answer: (r: Received, deliveries: number) => number | Promise<number> = () => 200, port = 0) {
  const received: Received[] = [];
  let server: Server;
  const listen = (p: number) =>
    new Promise<number>((resolve) => {
      server = createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', async () => {
          const [path, query = ''] = req.url!.split('?');
          const params = Object.fromEntries(new URLSearchParams(req.method === 'POST' ? body : query));
          const r = { method: req.method!, path, query, headers: req.headers, body, params };
          received.push(r);
          const status = req.method === 'HEAD' ? 200 : await answer(r, received.filter((x) => x.method !== 'HEAD').length);
          if (!res.destroyed) res.writeHead(status).end(req.method === 'HEAD' ? undefined : 'ok');
        });
      });
      server.listen(p, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const actualPort = await listen(port);
  const stop = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return {
    url: `http://127.0.0.1:${actualPort}/hook`,
    port: actualPort,
    received,
    /** Deliveries (GET or POST), not the HEAD checks. */
    deliveries: () => received.filter((x) => x.method !== 'HEAD'),
    stop,
    restart: () => listen(actualPort),
  };
}

type Service = Pick<RunningService, 'ctx' | 'app'>;

async function post(s: Service, url: string, body: unknown, apikey: string) {
  const res = await s.app.inject({ method: 'POST', url, headers: { apikey }, payload: body as object });
  return JSON.parse(res.body);
}

/** Sends one SMS per number through the real pipeline; the simulator reports each status. */
async function sendSms(s: Service, accountId: number, numbers: string[], extraParams?: string) {
  const res = await s.ctx.db.kysely
    .transaction()
    .execute((trx) => submitMessages(trx, s.ctx, { accountId, channel: 'sms', source: 'sms', recipients: numbers.map((n) => ({ countryCode: '52', number: `52${n}` })), text: 'Hola', extraParams }));
  s.ctx.worker.nudge();
  return res.references;
}

const eventsOf = (s: Service, accountId: number) => s.ctx.db.kysely.selectFrom('events').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
const attemptsOf = (s: Service, eventId: number) => s.ctx.db.kysely.selectFrom('event_attempts').selectAll().where('event_id', '=', eventId).orderBy('id').execute();

/** Runs a `mensajero` command of the webhooks feature in this process, against `ctx`. */
const cli = (ctx: AppContext, args: string[]) => runCommands(ctx, [webhookCommands], [...args, '--json']);

const settle = (ms = 400) => new Promise((r) => setTimeout(r, ms));

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
      const [delivered, unknown] = await sendSms(h, a.id, ['5512345678', '5550000006'], '{"order":"A-7","tag":"ñ & ="}');
      await eventually(async () => r.deliveries().length >= 2, 15_000);
      const byRef = new Map(r.deliveries().map((d) => [d.params.reference, d]));
      const date = /^\d{14}$/;
      expect(byRef.get(delivered.reference)!.params).toEqual({ type: 'confirmation', reference: delivered.reference, status: '0', number: '525512345678', date: expect.stringMatching(date), extra_params: '{"order":"A-7","tag":"ñ & ="}' });
      expect(byRef.get(unknown.reference)!.params).toMatchObject({ type: 'confirmation', reference: unknown.reference, status: '6', number: '525550000006' });

      const reply = await h.post('/simulator/replies', { number: '5512345678', response: 'Sí, confirmo' }, a.apikey);
      expect(reply.body.reference).toBe(delivered.reference);
      await eventually(async () => r.deliveries().length >= 3, 15_000);
      const response = r.deliveries().find((d) => d.params.type === 'response')!;
      expect(response.params).toEqual({ type: 'response', reference: delivered.reference, number: '525512345678', message: 'Hola', response: 'Sí, confirmo', send_date: expect.stringMatching(date), response_date: expect.stringMatching(date) });

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
      const sent = await h.post('/sms/send', { numbers: '5550000002', message: 'Pedido listo', extra_params: '{"pedido":"99"}' }, a.apikey);
      expect(sent.body.code).toBe('sms_11');
      const [{ reference }] = sent.body.references;
      await eventually(async () => r.deliveries().length >= 1, 15_000);
      expect(r.deliveries()[0].params).toMatchObject({ type: 'confirmation', reference, status: '2', number: '525550000002', extra_params: '{"pedido":"99"}' });
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
      expect(confirmation.params).toEqual({ source: 'mensajero', type: 'confirmation', reference: ref.reference, status: '3', number: '525550000003', date: expect.stringMatching(/^\d{14}$/), extra_params: '{"k":"v"}' });
      expect(response.params).toEqual({ source: 'mensajero', type: 'response', reference: ref.reference, number: '525550000003', message: 'Hola', response: 'STOP', send_date: expect.any(String), response_date: expect.any(String) });
      const wh = new Webhook((await cli(h.ctx, ['webhooks', 'secret', '--email', a.email])).secret);
      for (const d of [confirmation, response]) expect(() => wh.verify(d.query, d.headers as Record<string, string>, { jsonParse: false })).not.toThrow();
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
      expect(listed.events[0]).toMatchObject({ id: event.id, reference: ref.reference, state: 'delivered', attempts: 4, last_status: 200 });
      expect(listed.events[0].log.map((x: { http_status: number }) => x.http_status)).toEqual([503, 503, 503, 200]);
      expect(listed.events[0].log[0]).toMatchObject({ method: 'POST', error: 'answered 503', at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/) });
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
        const log = await h.ctx.db.kysely.selectFrom('event_attempts').select('event_id').where('account_id', '=', a.id).execute();
        return new Set(log.map((x) => x.event_id)).size === 5 && log.length >= 10;
      }, 15_000);
      expect(r.received).toHaveLength(0);
      await r.restart();
      await eventually(async () => (await eventsOf(h, a.id)).every((e) => e.state === 'delivered'), 15_000);
      await settle();
      const got = r.deliveries().map((d) => d.params.reference).sort();
      expect(got).toEqual(refs.map((x) => x.reference).sort());
      const errors = await h.ctx.db.kysely.selectFrom('event_attempts').select('error').where('account_id', '=', a.id).where('http_status', 'is', null).execute();
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
      expect(await cli(h.ctx, ['events', 'redeliver', '--id', String(second.id)])).toMatchObject({ id: second.id, state: 'pending' });
      await eventually(async () => (await eventsOf(h, a.id))[1].state === 'delivered', 15_000);
      await settle();
      expect(r.deliveries().filter((d) => d.params.reference === second.reference)).toHaveLength(1);
      expect(await h.ctx.db.kysely.selectFrom('jobs').select('id').where('unique_key', '=', `webhook-event:${second.id}`).execute()).toHaveLength(0);
    } finally {
      await r.stop();
    }
  });
});

describeEngines('webhook retries, isolation and restarts', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    // A 1 ms retry base runs the whole 25-retry schedule in about 9 s.
    h = await startHarness(engine, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '1', WEBHOOK_CONCURRENCY: '4', WEBHOOK_HOST_CONCURRENCY: '2' } });
  });
  afterAll(() => h.close());

  async function register(url: string) {
    const a = await h.createAccount(100);
    expect((await h.post('/webhook/add', { url, status: '1' }, a.apikey)).body.code).toBe('add_webhook_01');
    return a;
  }

  it('fails an event after 25 retries, lists it with --failed, and redelivers it on request', async () => {
    let healthy = false;
    const r = await receiver(() => (healthy ? 200 : 500));
    try {
      const a = await register(r.url);
      r.received.length = 0;
      const [ref] = await sendSms(h, a.id, ['5540000001']);
      const [event] = await eventually(async () => {
        const e = await eventsOf(h, a.id);
        return e[0]?.state === 'failed' ? e : null;
      }, 30_000);
      expect(event.attempts).toBe(26);
      expect(r.deliveries()).toHaveLength(26);
      expect(await attemptsOf(h, event.id)).toHaveLength(26);

      const failed = await cli(h.ctx, ['events', 'list', '--email', a.email, '--failed']);
      expect(failed.events).toHaveLength(1);
      expect(failed.events[0]).toMatchObject({ id: event.id, reference: ref.reference, state: 'failed', attempts: 26, last_status: 500, last_error: 'answered 500' });
      const metrics = (await h.get('/metrics')).body as string;
      expect(metrics).toMatch(/^mensajero_webhook_events_failed_total [1-9]/m);
      expect(metrics).toMatch(/^mensajero_webhook_events_pending \d+/m);

      healthy = true;
      // Parallel redeliveries: exactly one puts the event back in the queue; the others are refused while it is pending.
      const again = await Promise.all(Array.from({ length: 5 }, () => cli(h.ctx, ['events', 'redeliver', '--id', String(event.id)])));
      expect(again.filter((x) => x.state === 'pending')).toEqual([{ id: event.id, reference: ref.reference, state: 'pending' }]);
      expect(again.filter((x) => x.error)).toHaveLength(4);
      for (const x of again.filter((y) => y.error)) expect(x.error).toMatch(/already waiting/);
      const delivered = await eventually(async () => {
        const [e] = await eventsOf(h, a.id);
        return e.state === 'delivered' ? e : null;
      }, 15_000);
      await settle();
      expect(r.deliveries()).toHaveLength(27);
      expect(delivered.attempts).toBe(1);
      expect(await attemptsOf(h, event.id)).toHaveLength(27);
      expect(r.deliveries().at(-1)!.params.reference).toBe(ref.reference);
      expect((await cli(h.ctx, ['events', 'list', '--email', a.email, '--failed'])).events).toHaveLength(0);
      expect(await cli(h.ctx, ['events', 'redeliver', '--id', '999999999'])).toEqual({ error: 'no event with id 999999999' });
      expect(await cli(h.ctx, ['events', 'redeliver', '--id', '1e3'])).toEqual({ error: '--id must be a positive integer (got 1e3)' });
      expect(await cli(h.ctx, ['events', 'list', '--email', a.email, '--limit', '-1'])).toEqual({ error: '--limit must be a positive integer (got -1)' });
      expect((await h.get('/metrics')).body).toMatch(/^mensajero_webhook_delivery_latency_seconds_count [1-9]/m);
    } finally {
      await r.stop();
    }
  }, 60_000);

  it('shows and rotates the signing secret; deliveries are signed with the current one', async () => {
    const a = await h.createAccount();
    const shown = await cli(h.ctx, ['webhooks', 'secret', '--email', a.email]);
    expect(await cli(h.ctx, ['webhooks', 'secret', '--email', a.email])).toEqual(shown);
    const rotated = await cli(h.ctx, ['webhooks', 'secret', '--email', a.email, '--rotate']);
    expect(rotated).toMatchObject({ email: a.email, rotated: true, secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.secret).not.toBe(shown.secret);
    expect((await cli(h.ctx, ['webhooks', 'secret', '--email', a.email])).secret).toBe(rotated.secret);
    // Stored encrypted, never in clear.
    const row = await h.ctx.db.kysely.selectFrom('webhook_secrets').select('secret_enc').where('account_id', '=', a.id).executeTakeFirstOrThrow();
    expect(row.secret_enc).not.toContain(rotated.secret.slice(6, 20));
    expect(await cli(h.ctx, ['webhooks', 'secret', '--email', 'nobody@example.com'])).toEqual({ error: 'no account with email nobody@example.com' });
  });

  it("does not let a receiver that never answers delay another destination's events", async () => {
    const hanging: Array<() => void> = [];
    let dying = false;
    const dead = await receiver(() => (dying ? new Promise<number>((resolve) => hanging.push(() => resolve(200))) : 200));
    const alive = await receiver();
    try {
      const slow = await register(dead.url);
      dying = true;
      dead.received.length = 0;
      await sendSms(h, slow.id, Array.from({ length: 10 }, (_, i) => `55600000${String(i).padStart(2, '0')}`));
      await eventually(async () => dead.deliveries().length >= 2, 15_000);

      const fast = await register(`http://localhost:${alive.port}/hook`);
      alive.received.length = 0;
      const [ref] = await sendSms(h, fast.id, ['5560000099']);
      await eventually(async () => alive.deliveries().length >= 1, 15_000);
      expect(alive.deliveries()[0].params.reference).toBe(ref.reference);
      // Meanwhile the dead destination never had more than its 2 slots in flight, and none of its events got through.
      expect(dead.deliveries().length).toBeLessThanOrEqual(2);
      expect((await eventsOf(h, slow.id)).every((e) => e.state === 'pending')).toBe(true);
      expect((await h.post('/webhook/delete', {}, slow.apikey)).body.code).toBe('delete_webhook_01');
    } finally {
      hanging.forEach((f) => f());
      await dead.stop();
      await alive.stop();
    }
  });
});

/** A database that outlives one service: a SQLite file, or a PostgreSQL schema. */
async function persistentStore(engine: EngineName) {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-webhooks-'));
  const schema = engine === 'postgres' ? `w_${randomBytes(6).toString('hex')}` : undefined;
  return {
    start(env: Record<string, string>) {
      return startService(testConfig(engine, dir, env), { pgSchema: schema, log: pino({ level: 'silent' }), listen: false });
    },
    async drop() {
      if (schema) await dropSchema(schema);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describeEngines('webhook delivery across a restart', (engine) => {
  it('still delivers after the service restarts in the middle of a backoff, and re-checks the address at every attempt', async () => {
    const store = await persistentStore(engine);
    const r = await receiver((_req, n) => (n === 1 ? 500 : 200));
    let service: RunningService | undefined;
    try {
      const env = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '1500' };
      service = await store.start(env);
      const { account, apikey } = await insertAccount(service.ctx.db.kysely, service.ctx.secrets.keyEncryption, { email: 'restart@example.com', passwordHash: 'x', credits: toUnits(10) });
      expect((await post(service, '/webhook/add', { url: `http://localhost:${r.port}/hook`, status: '1' }, apikey)).code).toBe('add_webhook_01');
      r.received.length = 0;
      const [ref] = await sendSms(service, account.id, ['5570000001']);
      const first = service;
      await eventually(async () => (await first.ctx.db.kysely.selectFrom('event_attempts').select('id').execute()).length === 1, 15_000);
      await service.stop();
      expect(r.deliveries()).toHaveLength(1);

      service = await store.start(env);
      const second = service;
      const [event] = await eventually(async () => {
        const e = await eventsOf(second, account.id);
        return e[0]?.state === 'delivered' ? e : null;
      }, 15_000);
      expect(event.attempts).toBe(2);
      expect(r.deliveries().map((d) => d.params.reference)).toEqual([ref.reference, ref.reference]);
      const secret = (await cli(second.ctx, ['webhooks', 'secret', '--email', 'restart@example.com'])).secret;
      expect(() => new Webhook(secret).verify(r.deliveries()[1].body, r.deliveries()[1].headers as Record<string, string>, { jsonParse: false })).not.toThrow();
      await service.stop();

      // The same stored URL (localhost) is refused at delivery once private destinations are not allowed.
      service = await store.start({ WEBHOOK_RETRY_BASE_MS: '1500' });
      const third = service;
      await sendSms(third, account.id, ['5570000002']);
      const [refused] = await eventually(async () => {
        const log = await third.ctx.db.kysely.selectFrom('event_attempts').selectAll().where('event_id', '!=', event.id).execute();
        return log.length > 0 ? log : null;
      }, 15_000);
      expect(refused).toMatchObject({ http_status: null, error: expect.stringMatching(/private, local or reserved/) });
      expect(r.deliveries().filter((x) => x.params.reference !== ref.reference)).toHaveLength(0);
      expect(r.received.length).toBe(4); // two HEADs and two POSTs of the first event only
    } finally {
      await service?.stop();
      await r.stop();
      await store.drop();
    }
  }, 60_000);
});
