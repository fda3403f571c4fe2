import { afterEach, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { startOperatorApi, type OperatorApi } from '../helpers/operator-api.js';

describeEngines('operator API allow-list and rate limit', (engine) => {
  let api: OperatorApi | undefined;
  afterEach(async () => {
    await api?.h.close();
    api = undefined;
  });

  it('answers 403 op_address to an address outside OPERATOR_API_ALLOW_IP, even with a valid token', async () => {
    api = await startOperatorApi(engine, { OPERATOR_API_ALLOW_IP: '10.0.0.0/8, 192.0.2.7' });
    const token = await api.token('ops');
    const refused = await api.call('GET', '/accounts', { token });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('op_address');
    // Not behind a trusted proxy: X-Forwarded-For is the client's own word and counts for nothing.
    expect((await api.call('GET', '/accounts', { token, headers: { 'x-forwarded-for': '10.1.2.3' } })).status).toBe(
      403,
    );
  }, 60_000);

  it('takes the address from X-Forwarded-For only through a proxy named in TRUST_PROXY', async () => {
    api = await startOperatorApi(engine, { OPERATOR_API_ALLOW_IP: '10.0.0.0/8', TRUST_PROXY: '127.0.0.1' });
    const token = await api.token('ops');
    expect((await api.call('GET', '/accounts', { token, headers: { 'x-forwarded-for': '10.1.2.3' } })).status).toBe(
      200,
    );
    expect((await api.call('GET', '/accounts', { token, headers: { 'x-forwarded-for': '203.0.113.9' } })).status).toBe(
      403,
    );
  }, 60_000);

  it('lets a listed address in', async () => {
    api = await startOperatorApi(engine, { OPERATOR_API_ALLOW_IP: '127.0.0.1' });
    expect((await api.call('GET', '/accounts', { token: await api.token('ops') })).status).toBe(200);
  }, 60_000);

  it('answers 429 past OPERATOR_API_PER_MINUTE requests of one address, wrong tokens counted too', async () => {
    api = await startOperatorApi(engine, { OPERATOR_API_PER_MINUTE: '5' });
    const token = await api.token('ops');
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await api.call('GET', '/accounts', { token: 'mop_wrong' })).status);
    for (let i = 0; i < 5; i++) statuses.push((await api.call('GET', '/accounts', { token })).status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
    const limited = await api.call('GET', '/accounts', { token });
    expect(limited.body.code).toBe('rate_01');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 60_000);
});
