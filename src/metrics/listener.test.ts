import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { boundPort } from '../app/serve.js';
import { loadConfig } from '../config.js';

/** METRICS_PORT: /metrics on a listener of its own (an internal address), and no longer on the API port. */
describeEngines('metrics on their own listener', (engine) => {
  let h: Harness;
  let api: string;
  let metrics: string;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false, listen: true, env: { METRICS_PORT: '0' } });
    api = `http://127.0.0.1:${boundPort(h.app)}`;
    metrics = `http://127.0.0.1:${boundPort(h.metricsApp!)}`;
  });
  afterAll(() => h.close());

  it("serves /metrics on METRICS_HOST:METRICS_PORT (127.0.0.1 by default), counting the API port's requests", async () => {
    expect((h.metricsApp!.server.address() as { address: string }).address).toBe('127.0.0.1');
    expect((await fetch(`${api}/healthz`)).status).toBe(200);
    const r = await fetch(`${metrics}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await r.text()).toMatch(/mensajero_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1/);
  });

  it('the API port answers /metrics with 404, and the metrics port serves nothing else', async () => {
    const onApi = await fetch(`${api}/metrics`);
    expect(onApi.status).toBe(404);
    expect(await onApi.json()).toMatchObject({ success: false, code: 'not_found' });
    for (const path of ['/healthz', '/credits/consult', '/docs'])
      expect((await fetch(`${metrics}${path}`)).status, path).toBe(404);
    expect(
      (
        await fetch(`${metrics}/credits/consult`, {
          method: 'POST',
          headers: { apikey: (await h.createAccount()).apikey },
        })
      ).status,
    ).toBe(404);
  });
});

describe('metrics listener settings', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite', {
      worker: false,
      env: { METRICS_PORT: '0', METRICS_TOKEN: 'metrics-token-0123456789' },
    });
  });
  afterAll(() => h.close());

  it('keeps METRICS_TOKEN on the separate listener', async () => {
    const none = await h.metricsApp!.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ code: 'metrics_unauthorized' });
    const ok = await h.metricsApp!.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer metrics-token-0123456789' },
    });
    expect(ok.statusCode).toBe(200);
  });

  it('refuses METRICS_HOST without METRICS_PORT and METRICS_PORT equal to PORT; an empty METRICS_PORT is unset', () => {
    expect(() => loadConfig({ METRICS_HOST: '10.0.0.1' })).toThrow(/METRICS_HOST: set METRICS_PORT/);
    expect(() => loadConfig({ PORT: '3000', METRICS_PORT: '3000' })).toThrow(/METRICS_PORT: must differ from PORT/);
    expect(() => loadConfig({ METRICS_PORT: 'x' })).toThrow(/METRICS_PORT/);
    expect(loadConfig({ METRICS_PORT: '' }).METRICS_PORT).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '10.0.0.1' })).toMatchObject({
      METRICS_PORT: 9464,
      METRICS_HOST: '10.0.0.1',
    });
  });
});
