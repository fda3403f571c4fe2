import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { recordEvents } from './record.js';
import { ForbiddenDestination } from '../outbound/addresses.js';

/** A receiver answering 200 to everything, counting the TCP connections it accepts and the requests. */
async function receiver() {
  const stats = { connections: 0, heads: 0, posts: 0 };
  const server: Server = createServer((req, res) => {
    if (req.method === 'HEAD') stats.heads++;
    if (req.method === 'POST') stats.posts++;
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  server.on('connection', () => stats.connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    stats,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describeEngines('webhook delivery: connections', (engine) => {
  let h: Harness;
  let rx: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_HOST_CONCURRENCY: '2' } });
    rx = await receiver();
  });
  afterAll(async () => {
    await h.close();
    await rx.close();
  });

  it('reuses the connections of a destination across events, HEAD included', async () => {
    const a = await h.createAccount(100);
    const before = rx.stats.connections; // the registration's own check
    expect(
      (await h.post('/webhook/add', { url: `http://127.0.0.1:${rx.port}/hook`, status: '1' }, a.apikey)).body.code,
    ).toBe('add_webhook_01');
    const count = 30;
    await h.ctx.db.kysely.transaction().execute((trx) =>
      recordEvents(
        trx,
        Array.from({ length: count }, (_, i) => ({
          accountId: a.id,
          type: 'response' as const,
          reference: `c${i}`,
          payload: { number: '525512345678', message: 'hola' },
        })),
      ),
    );
    h.ctx.worker.nudge();
    await eventually(async () => {
      const delivered = await h.ctx.db.kysely
        .selectFrom('events')
        .select('id')
        .where('account_id', '=', a.id)
        .where('state', '=', 'delivered')
        .execute();
      return delivered.length === count;
    }, 20_000);
    expect(rx.stats.posts).toBe(count);
    expect(rx.stats.heads).toBe(count);
    // 60 requests; a connection per request (or two per event) would be 30 or more. At most the
    // per-host concurrency plus the registration's check (a pool may be remade once if it raced).
    expect(rx.stats.connections - before).toBeLessThanOrEqual(5);
  });

  it('still refuses a private address before any connection when private addresses are not allowed', async () => {
    const before = rx.stats.connections;
    await expect(h.ctx.outbound.agent(`http://127.0.0.1:${rx.port}/hook`, false, 1000)).rejects.toBeInstanceOf(
      ForbiddenDestination,
    );
    expect(rx.stats.connections).toBe(before);
  });
});
