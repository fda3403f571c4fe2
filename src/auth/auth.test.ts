import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveAccount, rotateKey } from '../accounts/store.js';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../test/helpers/harness.js';
import { loadConfig, trustProxyOption } from '../config.js';
import { ipAllowed, parseAllowList } from '../lib/ip-ranges.js';
import { ALLOW_LIST_CACHE_MAX, AllowListCache, normaliseAllowList } from './allow-list.js';

describe('allow-list matching', () => {
  const ranges = parseAllowList(['10.0.0.0/8', '2001:db8::/32', '192.0.2.7']);
  it.each([
    ['10.1.2.3', true],
    ['11.0.0.1', false],
    ['::ffff:10.9.9.9', true],
    ['2001:db8::1', true],
    ['2001:db9::1', false],
    ['192.0.2.7', true],
    ['192.0.2.8', false],
    ['not-an-ip', false],
  ])('%s → %s', (ip, expected) => expect(ipAllowed(ip, ranges)).toBe(expected));

  it('refuses malformed entries', () => expect(() => normaliseAllowList(['10.0.0.0/33'])).toThrow());

  it('keeps at most ALLOW_LIST_CACHE_MAX parsed lists, the least recently used leaving first', () => {
    const cache = new AllowListCache();
    const list = (i: number) => JSON.stringify([`10.${i >> 8}.${i & 255}.0/24`]);
    const allows = (i: number, ip: string) => ipAllowed(ip, cache.ranges(list(i)));
    const [first, busy] = [cache.ranges(list(0)), cache.ranges(list(7))];
    for (let i = 0; i < ALLOW_LIST_CACHE_MAX + 50; i++) {
      expect(allows(i, `10.${i >> 8}.${i & 255}.9`)).toBe(true);
      cache.ranges(list(7)); // used at every step: never the least recent
    }
    expect(cache.size).toBe(ALLOW_LIST_CACHE_MAX);
    expect(cache.ranges(list(7))).toBe(busy);
    // The first list left the cache: it is parsed again, with the same answers.
    expect(cache.ranges(list(0))).not.toBe(first);
    expect(allows(0, '10.0.0.1')).toBe(true);
    expect(allows(0, '10.0.1.1')).toBe(false);
    expect(allows(ALLOW_LIST_CACHE_MAX + 49, '10.4.25.200')).toBe(true);
    expect(cache.size).toBe(ALLOW_LIST_CACHE_MAX);
  });
});

describeEngines('API key authentication', (engine) => {
  let h: Harness;
  let acct: TestAccount;
  beforeAll(async () => {
    h = await startHarness(engine);
    acct = await h.createAccount(10);
  });
  afterAll(() => h.close());

  it('refuses a missing key with 401 auth_05', async () => {
    const r = await h.post('/credits/consult', {});
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ success: false, status: 401, code: 'auth_05' });
  });

  it('refuses an unknown key with 401 auth_05', async () => {
    expect((await h.post('/credits/consult', {}, 'mns_nope')).body.code).toBe('auth_05');
  });

  it('refuses a key in the query string and says to use the header', async () => {
    const r = await h.get(`/credits/consult?apikey=${acct.apikey}`);
    expect(r.status).toBe(401);
    expect(r.body.message).toMatch(/apikey header/);
  });

  it('accepts the deprecated token header and marks the answer deprecated', async () => {
    const r = await h.request('POST', '/credits/consult', { headers: { token: acct.apikey } });
    expect(r.status).toBe(200);
    expect(r.headers.deprecation).toBe('true');
  });

  it('stops a rotated key at once', async () => {
    const a = await h.createAccount(1);
    const fresh = await rotateKey(h.ctx.db.kysely, h.ctx.secrets.keyEncryption, a.id);
    expect((await h.post('/credits/consult', {}, a.apikey)).status).toBe(401);
    expect((await h.post('/credits/consult', {}, fresh)).status).toBe(200);
  });

  it('stops the key of an archived account at once', async () => {
    const a = await h.createAccount(1);
    expect((await h.post('/credits/consult', {}, a.apikey)).status).toBe(200);
    await archiveAccount(h.ctx.db.kysely, a.id);
    expect((await h.post('/credits/consult', {}, a.apikey)).status).toBe(401);
  });

  it('applies the IP allow-list with 403 auth_04 and ignores X-Forwarded-For without TRUST_PROXY', async () => {
    const a = await h.createAccount(1);
    await h.ctx.db.kysely
      .updateTable('accounts')
      .set({ allow_ips: JSON.stringify(['10.0.0.0/8']) })
      .where('id', '=', a.id)
      .execute();
    const r = await h.request('POST', '/credits/consult', {
      apikey: a.apikey,
      headers: { 'x-forwarded-for': '10.1.1.1' },
    });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ success: false, status: 403, code: 'auth_04' });
    await h.ctx.db.kysely
      .updateTable('accounts')
      .set({ allow_ips: JSON.stringify(['127.0.0.1/32']) })
      .where('id', '=', a.id)
      .execute();
    expect((await h.post('/credits/consult', {}, a.apikey)).status).toBe(200);
  });
});

describeEngines('API key authentication behind a proxy', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { TRUST_PROXY: '127.0.0.1/8' } });
  });
  afterAll(() => h.close());

  it('takes the client address from X-Forwarded-For when TRUST_PROXY is set', async () => {
    const a = await h.createAccount(1);
    await h.ctx.db.kysely
      .updateTable('accounts')
      .set({ allow_ips: JSON.stringify(['10.0.0.0/8', '2001:db8::/32']) })
      .where('id', '=', a.id)
      .execute();
    expect(
      (await h.request('POST', '/credits/consult', { apikey: a.apikey, headers: { 'x-forwarded-for': '10.1.1.1' } }))
        .status,
    ).toBe(200);
    expect(
      (await h.request('POST', '/credits/consult', { apikey: a.apikey, headers: { 'x-forwarded-for': '2001:db8::5' } }))
        .status,
    ).toBe(200);
    expect(
      (await h.request('POST', '/credits/consult', { apikey: a.apikey, headers: { 'x-forwarded-for': '8.8.8.8' } }))
        .status,
    ).toBe(403);
  });

  it('refuses a forged X-Forwarded-For: the client address is the right-most one the trusted proxy did not write', async () => {
    const a = await h.createAccount(1);
    await h.ctx.db.kysely
      .updateTable('accounts')
      .set({ allow_ips: JSON.stringify(['10.0.0.0/8']) })
      .where('id', '=', a.id)
      .execute();
    // The client at 8.8.8.8 wrote "10.1.1.1" itself; the proxy appended the address it saw.
    const forged = await h.request('POST', '/credits/consult', {
      apikey: a.apikey,
      headers: { 'x-forwarded-for': '10.1.1.1, 8.8.8.8' },
    });
    expect(forged.status).toBe(403);
    // Chained trusted proxies (127.x) are skipped.
    expect(
      (
        await h.request('POST', '/credits/consult', {
          apikey: a.apikey,
          headers: { 'x-forwarded-for': '8.8.8.8, 10.1.1.1, 127.0.0.5' },
        })
      ).status,
    ).toBe(200);
  });
});

describe('TRUST_PROXY configuration', () => {
  it.each(['true', '1', '2', 'yes', '10.0.0.0/8, not-an-ip'])(
    'refuses %s at start-up with a clear message',
    (value) => {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY/);
    },
  );

  it('accepts addresses and CIDRs, IPv4 and IPv6', () => {
    const cfg = loadConfig({ TRUST_PROXY: '10.0.0.5, 192.168.0.0/16,2001:db8::/32' });
    expect(trustProxyOption(cfg.TRUST_PROXY)).toEqual(['10.0.0.5', '192.168.0.0/16', '2001:db8::/32']);
    expect(trustProxyOption(undefined)).toBe(false);
  });
});
