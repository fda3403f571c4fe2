import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { recordEvents } from './record.js';
import { deliveryJobKey } from './record.js';

/** A receiver answering `status` to everything (after `delayMs`), counting POSTs by reference. */
async function receiver(status: number, delayMs = 0) {
  const posts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method === 'POST') {
        const reference = new URLSearchParams(body).get('reference') ?? '';
        posts.set(reference, (posts.get(reference) ?? 0) + 1);
      }
      setTimeout(() => res.writeHead(status).end(), delayMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    posts,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describeEngines('webhook delivery in batches', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    // A small lane: most events are delivered by batches the lane's jobs claimed beside their own.
    h = await startHarness(engine, {
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_CONCURRENCY: '5',
        WEBHOOK_ACCOUNT_CONCURRENCY: '8',
        WEBHOOK_RETRY_BASE_MS: '600000',
      },
    });
  });
  afterAll(() => h.close());

  const record = async (accountId: number, count: number) => {
    await h.ctx.db.kysely.transaction().execute((trx) =>
      recordEvents(
        trx,
        Array.from({ length: count }, (_, i) => ({
          accountId,
          type: 'response' as const,
          reference: `b${accountId}-${i}`,
          payload: { reference: `b${accountId}-${i}`, message: 'hola' },
        })),
      ),
    );
    h.ctx.worker.nudge();
  };
  const ids = async (accountId: number) =>
    (await h.ctx.db.kysely.selectFrom('events').select('id').where('account_id', '=', accountId).execute()).map((r) =>
      Number(r.id),
    );

  it('delivers every event once, logs one attempt each and leaves no job behind', async () => {
    const rx = await receiver(200);
    try {
      const a = await h.createAccount(100);
      expect((await h.post('/webhook/add', { url: rx.url, status: '1' }, a.apikey)).body.code).toBe('add_webhook_01');
      const count = 120;
      await record(a.id, count);
      await eventually(async () => {
        const rows = await h.ctx.db.kysely
          .selectFrom('events')
          .select('state')
          .where('account_id', '=', a.id)
          .where('state', '=', 'delivered')
          .execute();
        return rows.length === count;
      }, 30_000);
      expect(rx.posts.size).toBe(count);
      expect([...rx.posts.values()].every((n) => n === 1)).toBe(true);
      const attempts = await h.ctx.db.kysely
        .selectFrom('event_attempts')
        .select('event_id')
        .where('account_id', '=', a.id)
        .execute();
      expect(attempts).toHaveLength(count);
      const keys = (await ids(a.id)).map(deliveryJobKey);
      await eventually(
        async () =>
          (await h.ctx.db.kysely.selectFrom('jobs').select('id').where('unique_key', 'in', keys).execute()).length ===
          0,
        10_000,
      );
    } finally {
      await rx.close();
    }
  });

  it("holds at most its share of jobs beside the lane's own, however many of the lane's jobs start together", async () => {
    // A slow receiver: the backlog waits for slots, and the batches hold what they claimed meanwhile.
    const rx = await receiver(200, 100);
    try {
      const a = await h.createAccount(100);
      expect((await h.post('/webhook/add', { url: rx.url, status: '1' }, a.apikey)).body.code).toBe('add_webhook_01');
      const count = 150;
      await record(a.id, count);
      const keys = (await ids(a.id)).map(deliveryJobKey);
      let peak = 0;
      await eventually(async () => {
        const leased = await h.ctx.db.kysely
          .selectFrom('jobs')
          .select('id')
          .where('unique_key', 'in', keys)
          .where('locked_by', 'is not', null)
          .execute();
        peak = Math.max(peak, leased.length);
        return rx.posts.size === count;
      }, 30_000);
      // The lane's 5 jobs and batches' claims up to WEBHOOK_CONCURRENCY × 4.
      expect(peak).toBeGreaterThan(5);
      expect(peak).toBeLessThanOrEqual(5 + 5 * 4);
    } finally {
      await rx.close();
    }
  });

  it('puts the jobs of failed attempts back in the queue, released and due at the next retry', async () => {
    const rx = await receiver(500);
    try {
      const a = await h.createAccount(100);
      expect((await h.post('/webhook/add', { url: rx.url, status: '1' }, a.apikey)).body.code).toBe('add_webhook_01');
      const count = 60;
      const started = Date.now();
      await record(a.id, count);
      await eventually(async () => {
        const rows = await h.ctx.db.kysely
          .selectFrom('events')
          .select('attempts')
          .where('account_id', '=', a.id)
          .where('attempts', '=', 1)
          .execute();
        return rows.length === count;
      }, 30_000);
      const keys = (await ids(a.id)).map(deliveryJobKey);
      const jobs = await eventually(async () => {
        const rows = await h.ctx.db.kysely
          .selectFrom('jobs')
          .select(['run_at', 'locked_by', 'state'])
          .where('unique_key', 'in', keys)
          .execute();
        return rows.length === count && rows.every((j) => j.locked_by === null) ? rows : null;
      }, 10_000);
      // The first retry waits the base delay (10 minutes here) with jitter of ±20 %.
      for (const j of jobs) {
        expect(j.state).toBe('pending');
        expect(Number(j.run_at)).toBeGreaterThan(started + 0.75 * 600_000);
      }
      const events = await h.ctx.db.kysely
        .selectFrom('events')
        .select(['state', 'next_attempt_at', 'last_status'])
        .where('account_id', '=', a.id)
        .execute();
      expect(
        events.every(
          (e) => e.state === 'pending' && e.last_status === 500 && Number(e.next_attempt_at) > started + 0.75 * 600_000,
        ),
      ).toBe(true);
      expect(
        await h.ctx.db.kysely.selectFrom('event_attempts').select('id').where('account_id', '=', a.id).execute(),
      ).toHaveLength(count);
      // The endpoint's failure record started with the first failure.
      expect(
        (
          await h.ctx.db.kysely
            .selectFrom('webhooks')
            .select('failing_since')
            .where('account_id', '=', a.id)
            .executeTakeFirstOrThrow()
        ).failing_since,
      ).not.toBeNull();
    } finally {
      await rx.close();
    }
  });
});
