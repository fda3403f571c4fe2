import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { archiveAccount } from '../accounts/store.js';
import { isForbiddenAddress } from './addresses.js';
import { MAX_RETRIES, retryDelayMs, scheduleWithoutJitter } from './schedule.js';
import { HostSlots } from './host-slots.js';
import { safeAgent, send } from './http.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP receiver on 127.0.0.1; `answer` picks the status of each request. */
async function receiver(answer: (r: Received) => number | Promise<number> = () => 200) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const r = { method: req.method!, url: req.url!, headers: req.headers, body };
      received.push(r);
      const status = await answer(r);
      if (status === 302) res.writeHead(302, { location: '/missing' }).end();
      else res.writeHead(status).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

describe('webhook address rules', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['100.100.100.200', true],
    ['224.0.0.1', true],
    ['0.0.0.0', true],
    ['255.255.255.255', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fc00::1', true],
    ['fd00:ec2::254', true],
    ['ff02::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:10.0.0.1', true],
    ['::127.0.0.1', true],
    ['64:ff9b::a00:1', true],
    ['2002:a00:1::', true],
    ['not an address', true],
    ['8.8.8.8', false],
    ['93.184.215.14', false],
    ['::ffff:8.8.8.8', false],
    ['2606:4700:4700::1111', false],
  ])('%s forbidden: %s', (address, forbidden) => expect(isForbiddenAddress(address)).toBe(forbidden));

  it('spreads 25 retries over about a day, with jitter', () => {
    const schedule = scheduleWithoutJitter(10_000);
    expect(schedule).toHaveLength(MAX_RETRIES);
    const hours = schedule.at(-1)! / 3_600_000;
    expect(hours).toBeGreaterThan(22);
    expect(hours).toBeLessThan(26);
    expect(retryDelayMs(1, 10_000, () => 0)).toBe(8_000);
    expect(retryDelayMs(1, 10_000, () => 0.999)).toBeLessThan(12_000);
    expect(retryDelayMs(25, 10_000, () => 0.5)).toBe(5_120_000);
  });
});

describe('the delivery connector', () => {
  it.each(['http://127.0.0.1:PORT/x', 'http://localhost:PORT/x', 'http://[::ffff:127.0.0.1]:PORT/x'])('refuses %s at connection time, sending nothing', async (template) => {
    const r = await receiver();
    const agent = safeAgent(false, 2_000);
    try {
      const answer = await send(agent, template.replace('PORT', String(r.port)), { method: 'GET', timeoutMs: 2_000 });
      expect(answer).toMatchObject({ status: null, forbidden: true, error: expect.stringMatching(/private, local or reserved/) });
      expect(r.received).toHaveLength(0);
    } finally {
      await agent.close();
      await r.close();
    }
  });

  it('connects when private destinations are allowed', async () => {
    const r = await receiver(() => 204);
    const agent = safeAgent(true, 2_000);
    try {
      expect(await send(agent, `http://localhost:${r.port}/x`, { method: 'HEAD', timeoutMs: 2_000 })).toMatchObject({ status: 204, error: null });
    } finally {
      await agent.close();
      await r.close();
    }
  });
});

describe('per-destination delivery slots', () => {
  it('caps deliveries per host and hands freed slots to waiters', async () => {
    const slots = new HostSlots(2);
    expect(await slots.acquire('busy.example', 50)).toBe(true);
    expect(await slots.acquire('busy.example', 50)).toBe(true);
    expect(await slots.acquire('other.example', 50)).toBe(true);
    const waiting = [slots.acquire('busy.example', 1_000), slots.acquire('busy.example', 1_000)];
    slots.release('busy.example');
    slots.release('busy.example');
    expect(await Promise.all(waiting)).toEqual([true, true]);
    expect(await slots.acquire('busy.example', 20)).toBe(false); // nothing freed in time
    expect(slots.deferMs('busy.example')).toBeLessThanOrEqual(1_500);
  });

  it('stops making jobs wait for a failing host and steps them back further and further until it answers 200', async () => {
    const slots = new HostSlots(2);
    await slots.acquire('dead.example', 50);
    await slots.acquire('dead.example', 50);
    slots.outcome('dead.example', false);
    slots.outcome('dead.example', false);
    const started = Date.now();
    expect(await slots.acquire('dead.example', 5_000)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
    for (let i = 0; i < 20; i++) expect(await slots.acquire('dead.example', 5_000)).toBe(false);
    expect(slots.deferMs('dead.example')).toBeGreaterThan(1_500);
    expect(slots.deferMs('dead.example')).toBeLessThanOrEqual(96_000);
    slots.outcome('dead.example', true);
    expect(slots.deferMs('dead.example')).toBeLessThanOrEqual(1_500);
    const again = slots.acquire('dead.example', 1_000);
    slots.release('dead.example');
    expect(await again).toBe(true);
  });
});

describeEngines('webhook configuration', (engine) => {
  let h: Harness;
  let strict: Harness;
  beforeAll(async () => {
    [h, strict] = await Promise.all([startHarness(engine, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } }), startHarness(engine)]);
  });
  afterAll(async () => {
    await h.close();
    await strict.close();
  });

  it('answers webhook_01 with null url and status when none is registered', async () => {
    const a = await h.createAccount();
    expect((await h.post('/webhook/get', {}, a.apikey)).body).toEqual({ success: true, message: 'no_webhook', status: 200, code: 'webhook_01', result: { url: null, status: null } });
  });

  it('registers after a GET check, shows it, replaces it, changes its status and deletes it', async () => {
    const r = await receiver();
    try {
      const a = await h.createAccount();
      const added = await h.post('/webhook/add', { url: r.url, status: '1' }, a.apikey);
      expect(added.body).toEqual({ success: true, message: 'url_added_success', status: 200, code: 'add_webhook_01' });
      expect(r.received).toHaveLength(1);
      expect(r.received[0].method).toBe('GET');
      expect((await h.post('/webhook/get', {}, a.apikey)).body).toMatchObject({ code: 'webhook_01', result: { url: r.url, status: '1' } });

      // Numbers and form bodies are accepted like strings.
      const replaced = await h.request('POST', '/webhook/add', { apikey: a.apikey, form: { url: `${r.url}?x=1`, status: '0' } });
      expect(replaced.body.code).toBe('add_webhook_01');
      expect((await h.post('/webhook/get', {}, a.apikey)).body.result).toEqual({ url: `${r.url}?x=1`, status: '0' });

      expect((await h.post('/webhook/status', { status: 1 }, a.apikey)).body).toEqual({ success: true, message: 'webhook_status_updated', status: 200, code: 'status_webhook_01' });
      expect((await h.post('/webhook/get', {}, a.apikey)).body.result.status).toBe('1');

      expect((await h.post('/webhook/delete', {}, a.apikey)).body).toEqual({ success: true, message: 'webhook_deleted', status: 200, code: 'delete_webhook_01' });
      expect((await h.post('/webhook/get', {}, a.apikey)).body.result).toEqual({ url: null, status: null });
      // Deleting again is harmless: there is still no webhook.
      expect((await h.post('/webhook/delete', {}, a.apikey)).body.code).toBe('delete_webhook_01');
    } finally {
      await r.close();
    }
  });

  it.each([
    [{ status: '1' }, 'add_webhook_02'],
    [{ url: '', status: '1' }, 'add_webhook_02'],
    [{ url: '   ', status: '1' }, 'add_webhook_02'],
    [{ url: null, status: '1' }, 'add_webhook_02'],
    [{ url: 'not a url', status: '1' }, 'add_webhook_03'],
    [{ url: 12345, status: '1' }, 'add_webhook_03'],
    [{ url: { href: 'http://example.com' }, status: '1' }, 'add_webhook_03'],
    [{ url: ['http://example.com'], status: '1' }, 'add_webhook_03'],
    [{ url: 'ftp://example.com/hook', status: '1' }, 'add_webhook_03'],
    [{ url: 'javascript:alert(1)', status: '1' }, 'add_webhook_03'],
    [{ url: 'file:///etc/passwd', status: '1' }, 'add_webhook_03'],
    [{ url: 'http://user:secret@example.com/hook', status: '1' }, 'add_webhook_03'],
    [{ url: `https://example.com/${'a'.repeat(3000)}`, status: '1' }, 'add_webhook_03'],
    [{ url: "https://example.com/'; DROP TABLE webhooks; --" }, 'add_webhook_04'],
    [{ url: 'https://example.com/hook' }, 'add_webhook_04'],
    [{ url: 'https://example.com/hook', status: '' }, 'add_webhook_04'],
    [{ url: 'https://example.com/hook', status: '2' }, 'add_webhook_05'],
    [{ url: 'https://example.com/hook', status: true }, 'add_webhook_05'],
    [{ url: 'https://example.com/hook', status: 1e308 }, 'add_webhook_05'],
    [{ url: 'https://example.com/hook', status: { a: 1 } }, 'add_webhook_05'],
  ])('POST /webhook/add %j answers %s', async (body, code) => {
    const a = await h.createAccount();
    const res = await h.post('/webhook/add', body, a.apikey);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, status: 400, code });
  });

  it.each([
    ['http://127.0.0.1:PORT/hook'],
    ['http://localhost:PORT/hook'],
    ['http://[::1]:PORT/hook'],
    ['http://[::ffff:127.0.0.1]:PORT/hook'],
    ['http://[::ffff:7f00:1]:PORT/hook'],
    ['http://2130706433:PORT/hook'],
    ['http://0x7f.1:PORT/hook'],
    ['http://10.0.0.1/hook'],
    ['http://192.168.0.10/hook'],
    ['http://169.254.169.254/latest/meta-data/'],
    ['http://100.64.0.1/hook'],
    ['http://0.0.0.0:PORT/hook'],
    ['http://[fe80::1]/hook'],
    ['http://224.0.0.1/hook'],
  ])('refuses %s with add_webhook_03 without WEBHOOK_ALLOW_PRIVATE, before any request', async (template) => {
    const r = await receiver();
    try {
      const a = await strict.createAccount();
      const res = await strict.post('/webhook/add', { url: template.replace('PORT', String(r.port)), status: '1' }, a.apikey);
      expect(res.body).toMatchObject({ success: false, code: 'add_webhook_03' });
      expect(r.received).toHaveLength(0);
      expect((await strict.post('/webhook/get', {}, a.apikey)).body.result.url).toBeNull();
    } finally {
      await r.close();
    }
  });

  it('approves any answer but 404 without following redirects; 404, closed ports and unknown hosts fail with add_webhook_06', async () => {
    const statuses = new Map<string, number>([['/e500', 500], ['/e302', 302], ['/e401', 401], ['/e404', 404]]);
    const r = await receiver((req) => statuses.get(req.url) ?? 200);
    const base = `http://127.0.0.1:${r.port}`;
    try {
      const a = await h.createAccount();
      expect((await h.post('/webhook/add', { url: `${base}/e500`, status: '1' }, a.apikey)).body.code).toBe('add_webhook_01');
      expect((await h.post('/webhook/add', { url: `${base}/e401`, status: '1' }, a.apikey)).body.code).toBe('add_webhook_01');
      expect((await h.post('/webhook/add', { url: `${base}/e302`, status: '1' }, a.apikey)).body.code).toBe('add_webhook_01');
      expect(r.received.map((x) => x.url)).toEqual(['/e500', '/e401', '/e302']); // the redirect to /missing was not followed
      expect((await h.post('/webhook/add', { url: `${base}/e404`, status: '1' }, a.apikey)).body).toMatchObject({ success: false, code: 'add_webhook_06' });
      expect((await h.post('/webhook/get', {}, a.apikey)).body.result.url).toBe(`${base}/e302`);

      const closed = await receiver();
      await closed.close();
      expect((await h.post('/webhook/add', { url: closed.url, status: '1' }, a.apikey)).body.code).toBe('add_webhook_06');
      expect((await h.post('/webhook/add', { url: 'http://no-such-host.invalid/hook', status: '1' }, a.apikey)).body.code).toBe('add_webhook_06');
    } finally {
      await r.close();
    }
  });

  it('fails with add_webhook_06 when the URL does not answer within 5 seconds', async () => {
    const r = await receiver(() => new Promise((resolve) => setTimeout(() => resolve(200), 7_000)));
    try {
      const a = await h.createAccount();
      expect((await h.post('/webhook/add', { url: r.url, status: '1' }, a.apikey)).body.code).toBe('add_webhook_06');
    } finally {
      await r.close();
    }
  }, 20_000);

  it('saves exactly one of parallel registrations; the others get add_webhook_08 and change nothing', async () => {
    // Every check is answered only once all five are in flight, so all five read the webhook before any saves.
    let release: () => void = () => undefined;
    let gate = new Promise<void>((resolve) => (release = resolve));
    let arrived = 0;
    const r = await receiver(async () => {
      if (++arrived % 5 === 0) {
        release();
        gate = new Promise<void>((resolve) => (release = resolve));
      } else await gate;
      return 200;
    });
    try {
      const a = await h.createAccount();
      const urls = Array.from({ length: 5 }, (_, i) => `${r.url}/${i}`);
      const replies = await Promise.all(urls.map((url) => h.post('/webhook/add', { url, status: '1' }, a.apikey)));
      const codes = replies.map((x) => x.body.code);
      expect(codes.filter((c) => c === 'add_webhook_01')).toHaveLength(1);
      expect(codes.filter((c) => c === 'add_webhook_08')).toHaveLength(4);
      const winner = urls[codes.indexOf('add_webhook_01')];
      expect((await h.post('/webhook/get', {}, a.apikey)).body.result.url).toBe(winner);
      // With one registered, parallel replacements race the same way.
      const again = await Promise.all(urls.map((url) => h.post('/webhook/add', { url, status: '0' }, a.apikey)));
      expect(again.filter((x) => x.body.code === 'add_webhook_01')).toHaveLength(1);
      expect(again.filter((x) => x.body.code === 'add_webhook_08')).toHaveLength(4);
    } finally {
      await r.close();
    }
  });

  it('saves nothing with add_webhook_07 when the account is closed during the check', async () => {
    const a = await h.createAccount();
    const r = await receiver(async () => {
      await archiveAccount(h.ctx.db.kysely, a.id);
      return 200;
    });
    try {
      expect((await h.post('/webhook/add', { url: r.url, status: '1' }, a.apikey)).body).toMatchObject({ success: false, code: 'add_webhook_07' });
      expect(await h.ctx.db.kysely.selectFrom('webhooks').select('url').where('account_id', '=', a.id).execute()).toHaveLength(0);
    } finally {
      await r.close();
    }
  });

  it.each([
    [{}, 'status_webhook_02'],
    [{ status: '' }, 'status_webhook_02'],
    [{ status: '3' }, 'status_webhook_03'],
    [{ status: 'enabled' }, 'status_webhook_03'],
    [{ status: [1] }, 'status_webhook_03'],
    [{ status: -1 }, 'status_webhook_03'],
  ])('POST /webhook/status %j answers %s', async (body, code) => {
    const a = await h.createAccount();
    expect((await h.post('/webhook/status', body, a.apikey)).body).toMatchObject({ success: false, status: 400, code });
  });

  it('answers status_webhook_04 when no webhook is registered', async () => {
    const a = await h.createAccount();
    expect((await h.post('/webhook/status', { status: '1' }, a.apikey)).body).toMatchObject({ success: false, status: 400, code: 'status_webhook_04' });
  });

  it('requires the apikey and rejects broken bodies without a 500', async () => {
    expect((await h.post('/webhook/get', {})).status).toBe(401);
    expect((await h.post('/webhook/add', { url: 'https://example.com', status: '1' })).body.code).toBe('auth_05');
    const a = await h.createAccount();
    const broken = await h.request('POST', '/webhook/add', { apikey: a.apikey, body: '{"url":', headers: { 'content-type': 'application/json' } });
    expect(broken.body.code).toBe('invalid_json');
    const array = await h.request('POST', '/webhook/status', { apikey: a.apikey, body: '[1,2]', headers: { 'content-type': 'application/json' } });
    expect(array.status).toBe(400);
  });

  it('lists every route in the OpenAPI document', async () => {
    const doc = (await h.get('/openapi.json')).body;
    for (const path of ['/webhook/get', '/webhook/add', '/webhook/status', '/webhook/delete']) expect(doc.paths[path]?.post?.tags).toEqual(['webhooks']);
  });
});
