import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeEngines,
  dropSchema,
  eventually,
  startHarness,
  testConfig,
  type EngineName,
  type Harness,
} from '../helpers/harness.js';
import { startService, type RunningService } from '../../src/app/serve.js';
import { insertAccount } from '../../src/accounts/store.js';
import { toUnits } from '../../src/accounts/credits.js';
import { receiver, post, sendSms, eventsOf, attemptsOf, cli, settle } from '../helpers/webhook-delivery.js';

describeEngines('webhook retries, isolation and restarts', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    // A 1 ms retry base runs the whole 25-retry schedule in about 9 s.
    h = await startHarness(engine, {
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_BASE_MS: '1',
        WEBHOOK_CONCURRENCY: '4',
        WEBHOOK_HOST_CONCURRENCY: '2',
      },
    });
  });
  afterAll(() => h.close());

  async function register(url: string) {
    const a = await h.createAccount(100);
    expect((await h.post('/webhook/add', { url, status: '1' }, a.apikey)).body.code).toBe('add_webhook_01');
    return a;
  }

  it('fails an event after 25 retries, lists it with --failed, and redelivers it on request', async () => {
    let healthy = false;
    // The redelivered attempt is held until the parallel redeliveries have answered: a delivered event may be redelivered again.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const r = await receiver(async () => (healthy ? held.then(() => 200) : 500));
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
      expect(failed.events[0]).toMatchObject({
        id: event.id,
        reference: ref.reference,
        state: 'failed',
        attempts: 26,
        last_status: 500,
        last_error: 'answered 500',
      });
      const metrics = (await h.get('/metrics')).body as string;
      expect(metrics).toMatch(/^mensajero_webhook_events_failed_total [1-9]/m);
      expect(metrics).toMatch(/^mensajero_webhook_events_pending \d+/m);

      healthy = true;
      // Parallel redeliveries: exactly one puts the event back in the queue; the others are refused while it is pending.
      const again = await Promise.all(
        Array.from({ length: 5 }, () => cli(h.ctx, ['events', 'redeliver', '--id', String(event.id)])),
      );
      expect(again.filter((x) => x.state === 'pending')).toEqual([
        { id: event.id, reference: ref.reference, state: 'pending' },
      ]);
      expect(again.filter((x) => x.error)).toHaveLength(4);
      for (const x of again.filter((y) => y.error)) expect(x.error).toMatch(/already waiting/);
      release();
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
      expect(await cli(h.ctx, ['events', 'redeliver', '--id', '999999999'])).toEqual({
        error: 'no event with id 999999999',
      });
      expect(await cli(h.ctx, ['events', 'redeliver', '--id', '1e3'])).toEqual({
        error: '--id must be a positive integer (got 1e3)',
      });
      expect(await cli(h.ctx, ['events', 'list', '--email', a.email, '--limit', '-1'])).toEqual({
        error: '--limit must be a positive integer (got -1)',
      });
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
    const row = await h.ctx.db.kysely
      .selectFrom('webhook_secrets')
      .select('secret_enc')
      .where('account_id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_enc).not.toContain(rotated.secret.slice(6, 20));
    expect(await cli(h.ctx, ['webhooks', 'secret', '--email', 'nobody@example.com'])).toEqual({
      error: 'no account with email nobody@example.com',
    });
  });

  it("does not let a receiver that never answers delay another destination's events", async () => {
    const hanging: Array<() => void> = [];
    let dying = false;
    const dead = await receiver(() =>
      dying ? new Promise<number>((resolve) => hanging.push(() => resolve(200))) : 200,
    );
    const alive = await receiver();
    try {
      const slow = await register(dead.url);
      dying = true;
      dead.received.length = 0;
      await sendSms(
        h,
        slow.id,
        Array.from({ length: 10 }, (_, i) => `55600000${String(i).padStart(2, '0')}`),
      );
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
      return startService(testConfig(engine, dir, env), {
        pgSchema: schema,
        log: pino({ level: 'silent' }),
        listen: false,
      });
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
      const { account, apikey } = await insertAccount(service.ctx.db.kysely, service.ctx.secrets.keyEncryption, {
        email: 'restart@example.com',
        passwordHash: 'x',
        credits: toUnits(10),
      });
      expect(
        (await post(service, '/webhook/add', { url: `http://localhost:${r.port}/hook`, status: '1' }, apikey)).code,
      ).toBe('add_webhook_01');
      r.received.length = 0;
      const [ref] = await sendSms(service, account.id, ['5570000001']);
      const first = service;
      await eventually(
        async () => (await first.ctx.db.kysely.selectFrom('event_attempts').select('id').execute()).length === 1,
        15_000,
      );
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
      expect(() =>
        new Webhook(secret).verify(r.deliveries()[1].body, r.deliveries()[1].headers as Record<string, string>, {
          jsonParse: false,
        }),
      ).not.toThrow();
      await service.stop();

      // The same stored URL (localhost) is refused at delivery once private destinations are not allowed.
      service = await store.start({ WEBHOOK_RETRY_BASE_MS: '1500' });
      const third = service;
      await sendSms(third, account.id, ['5570000002']);
      const [refused] = await eventually(async () => {
        const log = await third.ctx.db.kysely
          .selectFrom('event_attempts')
          .selectAll()
          .where('event_id', '!=', event.id)
          .execute();
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
