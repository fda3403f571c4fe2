import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { startOperatorApi, type OperatorApi } from '../helpers/operator-api.js';
import { addSmppUser } from '../../src/features/smpp-users/service.js';
import { listAudit } from '../../src/audit/service.js';

describeEngines('operator API prices, carriers, routes, SMPP users, margins', (engine) => {
  let api: OperatorApi;
  let token: string;
  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { token, body });
  beforeAll(async () => {
    api = await startOperatorApi(engine);
    token = await api.token('catalog');
  }, 60_000);
  afterAll(async () => {
    await api?.h.close();
  });

  it('sets, lists and removes prefix prices, the deployment’s and an account’s', async () => {
    const a = await api.h.createAccount();
    expect((await call('PUT', '/prices', { channel: 'sms', prefix: '52', credits: 1.5 })).body).toEqual({
      channel: 'sms',
      prefix: '52',
      credits: 1.5,
      account_id: null,
    });
    await call('PUT', '/prices', { channel: 'sms', prefix: '5255', credits: 0.75, account_id: a.id });
    const listed = (await call('GET', '/prices')).body.prices;
    expect(listed).toContainEqual({ channel: 'sms', prefix: '52', credits: 1.5, account_id: null, account: null });
    expect(listed).toContainEqual({
      channel: 'sms',
      prefix: '5255',
      credits: 0.75,
      account_id: a.id,
      account: a.email,
    });
    expect((await call('PUT', '/prices', { channel: 'fax', prefix: '52', credits: 1 })).body.code).toBe(
      'op_price_invalid',
    );
    expect(
      (await call('PUT', '/prices', { channel: 'sms', prefix: '52', credits: 1, account_id: 999999 })).status,
    ).toBe(404);
    expect((await call('DELETE', '/prices?channel=sms&prefix=52')).body).toEqual({ removed: true });
    expect((await call('DELETE', '/prices?channel=sms&prefix=52')).body).toEqual({ removed: false });
    const actions = (await listAudit(api.h.ctx.db.kysely, { since: 0, actor: 'token:catalog' })).map((e) => e.action);
    expect(actions).toEqual(['prices.remove', 'prices.set', 'prices.set']);
  });

  it('lists carriers with their state, routes and SMPP users (never a password)', async () => {
    const carriers = (await call('GET', '/carriers')).body.carriers;
    expect(carriers.length).toBeGreaterThan(0);
    expect(carriers[0]).toHaveProperty('state');
    expect((await call('GET', '/routes')).body).toHaveProperty('routes');
    const a = await api.h.createAccount();
    await addSmppUser(api.h.ctx.db, a, { systemId: 'shop01', password: 'sekrit12' });
    const users = await call('GET', '/smpp-users');
    expect(users.body.smpp_users).toContainEqual(expect.objectContaining({ system_id: 'shop01', email: a.email }));
    expect(JSON.stringify(users.body)).not.toContain('sekrit12');
  });

  it('reports margins of a period, refusing a bad one', async () => {
    const report = await call('GET', '/reports/margins?from=2026-01-01&to=2026-01-31&by=day');
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ currency: 'MXN', rows: [] });
    expect((await call('GET', '/reports/margins?from=2026-02-01&to=2026-01-01')).body.code).toBe('op_margins_invalid');
    expect((await call('GET', '/reports/margins?from=2026-01-01&to=2026-01-02&by=week')).body.code).toBe(
      'op_margins_invalid',
    );
    expect((await call('GET', '/reports/margins')).status).toBe(400);
  });
});
