import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { receiver } from '../../test/helpers/check-receiver.js';

describeEngines('webhook configuration', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(() => h.close());

  it('answers webhook_01 with null url and status when none is registered', async () => {
    const a = await h.createAccount();
    expect((await h.post('/webhook/get', {}, a.apikey)).body).toEqual({
      success: true,
      message: 'no_webhook',
      status: 200,
      code: 'webhook_01',
      result: { url: null, status: null },
    });
  });

  it('registers after a GET check, shows it, replaces it, changes its status and deletes it', async () => {
    const r = await receiver();
    try {
      const a = await h.createAccount();
      const added = await h.post('/webhook/add', { url: r.url, status: '1' }, a.apikey);
      expect(added.body).toEqual({ success: true, message: 'url_added_success', status: 200, code: 'add_webhook_01' });
      expect(r.received).toHaveLength(1);
      expect(r.received[0].method).toBe('GET');
      expect((await h.post('/webhook/get', {}, a.apikey)).body).toMatchObject({
        code: 'webhook_01',
        result: { url: r.url, status: '1' },
      });

      // Numbers and form bodies are accepted like strings.
      const replaced = await h.request('POST', '/webhook/add', {
        apikey: a.apikey,
        form: { url: `${r.url}?x=1`, status: '0' },
      });
      expect(replaced.body.code).toBe('add_webhook_01');
      expect((await h.post('/webhook/get', {}, a.apikey)).body.result).toEqual({ url: `${r.url}?x=1`, status: '0' });

      expect((await h.post('/webhook/status', { status: 1 }, a.apikey)).body).toEqual({
        success: true,
        message: 'webhook_status_updated',
        status: 200,
        code: 'status_webhook_01',
      });
      expect((await h.post('/webhook/get', {}, a.apikey)).body.result.status).toBe('1');

      expect((await h.post('/webhook/delete', {}, a.apikey)).body).toEqual({
        success: true,
        message: 'webhook_deleted',
        status: 200,
        code: 'delete_webhook_01',
      });
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

  it('approves any answer but 404 without following redirects; 404, closed ports and unknown hosts fail with add_webhook_06', async () => {
    const statuses = new Map<string, number>([
      ['/e500', 500],
      ['/e302', 302],
      ['/e401', 401],
      ['/e404', 404],
    ]);
    const r = await receiver((req) => statuses.get(req.url) ?? 200);
    const base = `http://127.0.0.1:${r.port}`;
    try {
      const a = await h.createAccount();
      expect((await h.post('/webhook/add', { url: `${base}/e500`, status: '1' }, a.apikey)).body.code).toBe(
        'add_webhook_01',
      );
      expect((await h.post('/webhook/add', { url: `${base}/e401`, status: '1' }, a.apikey)).body.code).toBe(
        'add_webhook_01',
      );
      expect((await h.post('/webhook/add', { url: `${base}/e302`, status: '1' }, a.apikey)).body.code).toBe(
        'add_webhook_01',
      );
      expect(r.received.map((x) => x.url)).toEqual(['/e500', '/e401', '/e302']); // the redirect to /missing was not followed
      expect((await h.post('/webhook/add', { url: `${base}/e404`, status: '1' }, a.apikey)).body).toMatchObject({
        success: false,
        code: 'add_webhook_06',
      });
      expect((await h.post('/webhook/get', {}, a.apikey)).body.result.url).toBe(`${base}/e302`);

      const closed = await receiver();
      await closed.close();
      expect((await h.post('/webhook/add', { url: closed.url, status: '1' }, a.apikey)).body.code).toBe(
        'add_webhook_06',
      );
      expect(
        (await h.post('/webhook/add', { url: 'http://no-such-host.invalid/hook', status: '1' }, a.apikey)).body.code,
      ).toBe('add_webhook_06');
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
    expect((await h.post('/webhook/status', { status: '1' }, a.apikey)).body).toMatchObject({
      success: false,
      status: 400,
      code: 'status_webhook_04',
    });
  });

  it('requires the apikey and rejects broken bodies without a 500', async () => {
    expect((await h.post('/webhook/get', {})).status).toBe(401);
    expect((await h.post('/webhook/add', { url: 'https://example.com', status: '1' })).body.code).toBe('auth_05');
    const a = await h.createAccount();
    const broken = await h.request('POST', '/webhook/add', {
      apikey: a.apikey,
      body: '{"url":',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.body.code).toBe('invalid_json');
    const array = await h.request('POST', '/webhook/status', {
      apikey: a.apikey,
      body: '[1,2]',
      headers: { 'content-type': 'application/json' },
    });
    expect(array.status).toBe(400);
  });

  it('lists every route in the OpenAPI document', async () => {
    const doc = (await h.get('/openapi.json')).body;
    for (const path of ['/webhook/get', '/webhook/add', '/webhook/status', '/webhook/delete'])
      expect(doc.paths[path]?.post?.tags).toEqual(['webhooks']);
  });
});
