import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../test/helpers/harness.js';

describeEngines('HTTP common layer', (engine) => {
  let h: Harness;
  let acct: TestAccount;
  beforeAll(async () => {
    h = await startHarness(engine, {
      env: { BODY_LIMIT_BYTES: '4096' },
      extraApiRoutes(api) {
        api.post('/test/boom', async () => {
          throw new Error('secret internals at /srv/app.ts:42');
        });
        api.post('/test/echo', async (request) => ({ body: request.body }));
      },
    });
    acct = await h.createAccount(5);
  });
  afterAll(() => h.close());

  it('answers every response with an x-request-id', async () => {
    const r = await h.post('/credits/consult', {}, acct.apikey);
    expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers broken JSON with a 400 envelope', async () => {
    const r = await h.request('POST', '/credits/consult', {
      apikey: acct.apikey,
      body: '{"a":',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, status: 400, code: 'invalid_json' });
  });

  it('accepts an empty JSON body as no parameters', async () => {
    const r = await h.request('POST', '/credits/consult', {
      apikey: acct.apikey,
      body: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(200);
  });

  it.each(['application/xml', 'text/plain', 'multipart/form-data; boundary=x'])(
    'answers a %s body with 415',
    async (type) => {
      const r = await h.request('POST', '/test/echo', {
        apikey: acct.apikey,
        body: 'numbers=5512345678',
        headers: { 'content-type': type },
      });
      expect(r.status).toBe(415);
      expect(r.body).toMatchObject({ success: false, code: 'unsupported_media_type' });
    },
  );

  it('answers an oversized body with 413', async () => {
    const r = await h.request('POST', '/test/echo', {
      apikey: acct.apikey,
      body: JSON.stringify({ x: 'y'.repeat(10_000) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ success: false, code: 'body_too_large' });
  });

  it('parses form bodies', async () => {
    const r = await h.request('POST', '/test/echo', { apikey: acct.apikey, form: { a: '1', b: 'dos' } });
    expect(r.status).toBe(200);
    expect(r.body.body).toEqual({ a: '1', b: 'dos' });
  });

  it('drops prototype-poisoning keys from JSON', async () => {
    const r = await h.request('POST', '/test/echo', {
      apikey: acct.apikey,
      body: '{"__proto__":{"x":1},"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(200);
    expect(r.body.body).toEqual({ a: 1 });
  });

  it('answers unknown routes with a 404 envelope', async () => {
    const r = await h.post('/no/such/route', {}, acct.apikey);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, status: 404, code: 'not_found' });
  });

  it('answers an unexpected error with 500 server_01 and a request_id, never the stack', async () => {
    const r = await h.post('/test/boom', {}, acct.apikey);
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ success: false, status: 500, code: 'server_01' });
    expect(r.body.request_id).toBe(r.headers['x-request-id']);
    expect(JSON.stringify(r.body)).not.toContain('secret internals');
  });

  it('serves health, readiness, metrics and the OpenAPI document', async () => {
    expect((await h.get('/healthz')).status).toBe(200);
    expect((await h.get('/readyz')).body).toEqual({ status: 'ready' });
    const metrics = await h.get('/metrics');
    expect(metrics.body).toContain('mensajero_http_requests_total');
    expect(metrics.body).toContain('mensajero_job_queue_depth');
    const doc = (await h.get('/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/credits/consult');
    expect((await h.get('/docs/')).status).toBe(200);
  });
});
