import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeEngines,
  eventually,
  startHarness,
  type Harness,
  type TestAccount,
} from '../../test/helpers/harness.js';
import { recordEvents } from './record.js';
import { subaccountEmailKey } from '../accounts/subaccount-email.js';

/**
 * A receiver that answers GET and POST at once; HEAD only when `hangHead` is
 * off (otherwise it never answers: the noisy neighbour). Counts HEADs in flight.
 */
async function receiver(opts: { hangHead: boolean; status?: number }) {
  let inFlight = 0;
  const stats = { peakHeads: 0, heads: 0, posts: 0 };
  const server: Server = createServer((req, res) => {
    if (req.method === 'HEAD' && opts.hangHead) {
      stats.heads++;
      inFlight++;
      stats.peakHeads = Math.max(stats.peakHeads, inFlight);
      req.socket.once('close', () => inFlight--);
      return;
    }
    if (req.method === 'POST') stats.posts++;
    req.resume();
    req.on('end', () => res.writeHead(opts.status ?? 200).end('ok'));
  });
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    stats,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function events(h: Harness, accountId: number, count: number): Promise<void> {
  await h.ctx.db.kysely.transaction().execute((trx) =>
    recordEvents(
      trx,
      Array.from({ length: count }, (_, i) => ({
        accountId,
        type: 'response' as const,
        reference: `r${i}`,
        payload: { number: '525512345678', message: 'hola' },
      })),
    ),
  );
  h.ctx.worker.nudge();
}

const states = async (h: Harness, accountId: number) =>
  (
    await h.ctx.db.kysely
      .selectFrom('events')
      .select('state')
      .where('account_id', '=', accountId)
      .where('type', '!=', 'webhook_disabled')
      .execute()
  ).map((r) => r.state);

describeEngines('webhook delivery: noisy neighbours', (engine) => {
  let h: Harness;
  let slow: Awaited<ReturnType<typeof receiver>>;
  let fast: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    h = await startHarness(engine, {
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_CONCURRENCY: '6',
        WEBHOOK_ACCOUNT_CONCURRENCY: '2',
        WEBHOOK_HEAD_TIMEOUT_MS: '400',
        WEBHOOK_TIMEOUTS_BEFORE_BACKOFF: '3',
        WEBHOOK_RETRY_BASE_MS: '600000',
      },
    });
    slow = await receiver({ hangHead: true });
    fast = await receiver({ hangHead: false });
  });
  afterAll(async () => {
    await h.close();
    await slow.close();
    await fast.close();
  });

  it('keeps one account and its sub-accounts (one host each) to their share while another tenant is served', async () => {
    const attacker = await h.createAccount(100);
    const accounts: Array<{ id: number; apikey: string }> = [attacker];
    for (let i = 1; i <= 3; i++) {
      const email = `noisy${i}-${attacker.id}@example.com`;
      const apikey = (await h.post('/manager/subaccount/add', { email, password: 'secret123' }, attacker.apikey)).body
        .apikey;
      const row = await h.ctx.db.kysely
        .selectFrom('accounts')
        .select('id')
        .where('email', '=', subaccountEmailKey(attacker.id, email))
        .executeTakeFirstOrThrow();
      accounts.push({ id: Number(row.id), apikey });
    }
    for (const [i, a] of accounts.entries()) {
      expect(
        (await h.post('/webhook/add', { url: `http://127.0.0.${i + 1}:${slow.port}/hook`, status: '1' }, a.apikey)).body
          .code,
      ).toBe('add_webhook_01');
    }
    const victim: TestAccount = await h.createAccount(100);
    expect(
      (await h.post('/webhook/add', { url: `http://127.0.0.1:${fast.port}/hook`, status: '1' }, victim.apikey)).body
        .code,
    ).toBe('add_webhook_01');

    for (const a of accounts) await events(h, a.id, 6);
    await events(h, victim.id, 3);

    await eventually(async () => (await states(h, victim.id)).every((s) => s === 'delivered'), 15_000);
    expect(fast.stats.posts).toBe(3);
    // The attacker's tenant never had more than its share of deliveries in flight, whatever its number of hosts.
    expect(slow.stats.peakHeads).toBeGreaterThan(0);
    expect(slow.stats.peakHeads).toBeLessThanOrEqual(2);
    // Repeated HEAD timeouts back an endpoint off: its deliveries wait instead of taking slots.
    await eventually(async () => {
      const rows = await h.ctx.db.kysely
        .selectFrom('webhooks')
        .select(['timeouts', 'backoff_until', 'failing_since'])
        .where(
          'account_id',
          'in',
          accounts.map((a) => a.id),
        )
        .execute();
      return rows.some(
        (r) => r.timeouts >= 3 && r.backoff_until !== null && r.backoff_until > Date.now() && r.failing_since !== null,
      );
    }, 15_000);
  });

  it('disables an endpoint that has failed for days, with an event the account can see', async () => {
    const failing = await receiver({ hangHead: false, status: 500 });
    try {
      const a = await h.createAccount(10);
      expect(
        (await h.post('/webhook/add', { url: `http://127.0.0.1:${failing.port}/hook`, status: '1' }, a.apikey)).body
          .code,
      ).toBe('add_webhook_01');
      const sixDaysAgo = Date.now() - 6 * 24 * 3600_000;
      await h.ctx.db.kysely
        .updateTable('webhooks')
        .set({ failing_since: sixDaysAgo })
        .where('account_id', '=', a.id)
        .execute();
      await events(h, a.id, 2);
      await eventually(
        async () =>
          (
            await h.ctx.db.kysely
              .selectFrom('webhooks')
              .select('status')
              .where('account_id', '=', a.id)
              .executeTakeFirst()
          )?.status === 0,
        10_000,
      );
      const got = (await h.post('/webhook/get', {}, a.apikey)).body.result;
      expect(got).toMatchObject({
        status: '0',
        disabled_reason: expect.stringContaining('answered 500'),
        disabled_at: expect.any(String),
      });
      const notice = await h.ctx.db.kysely
        .selectFrom('events')
        .selectAll()
        .where('account_id', '=', a.id)
        .where('type', '=', 'webhook_disabled')
        .execute();
      expect(notice).toHaveLength(1);
      expect(JSON.parse(notice[0].payload)).toMatchObject({
        type: 'webhook_disabled',
        url: `http://127.0.0.1:${failing.port}/hook`,
      });
      await eventually(async () => (await states(h, a.id)).every((s) => s !== 'pending'), 10_000);
      // Enabling it again clears the failure record.
      expect((await h.post('/webhook/status', { status: '1' }, a.apikey)).body.code).toBe('status_webhook_01');
      expect(
        await h.ctx.db.kysely
          .selectFrom('webhooks')
          .select(['failing_since', 'disabled_at'])
          .where('account_id', '=', a.id)
          .executeTakeFirst(),
      ).toEqual({ failing_since: null, disabled_at: null });
    } finally {
      await failing.close();
    }
  });
});

describeEngines('webhook delivery to a forbidden address', (engine) => {
  let h: Harness;
  let r: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { WEBHOOK_RETRY_BASE_MS: '50' } });
    r = await receiver({ hangHead: false });
  });
  afterAll(async () => {
    await h.close();
    await r.close();
  });

  it('fails the event at the first attempt instead of retrying 25 times', async () => {
    const a = await h.createAccount(10);
    // As if the name had been rebound to a loopback address after registration.
    await h.ctx.db.kysely
      .insertInto('webhooks')
      .values({
        account_id: a.id,
        url: `http://127.0.0.1:${r.port}/hook`,
        status: 1,
        version: 1,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .execute();
    await events(h, a.id, 1);
    const event = await eventually(async () => {
      const row = await h.ctx.db.kysely
        .selectFrom('events')
        .selectAll()
        .where('account_id', '=', a.id)
        .executeTakeFirst();
      return row?.state === 'failed' ? row : null;
    }, 10_000);
    expect(event.attempts).toBe(1);
    expect(r.stats.posts).toBe(0);
  });
});
