import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { startOperatorApi, type OperatorApi } from '../helpers/operator-api.js';
import { listAudit } from '../../src/audit/service.js';

/** POST/PATCH/DELETE /carriers, PUT …/costs/{prefix}, POST/DELETE /routes: every answer checked against the document. */
describeEngines('operator API writes: carriers, costs, routes', (engine) => {
  let api: OperatorApi;
  let token: string;
  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { token, body });
  beforeAll(async () => {
    api = await startOperatorApi(engine);
    token = await api.token('netops');
  }, 60_000);
  afterAll(async () => {
    await api?.h.close();
  });

  const smpp = { kind: 'smpp', host: '127.0.0.1', port: 2775, system_id: 'acme', password: 'sekrit12' };

  it('adds, changes and removes an SMPP connector, never answering its password, each change audited', async () => {
    const added = await call('POST', '/carriers', { ...smpp, name: 'telcel1', throughput: 50 });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ name: 'telcel1', type: 'smpp', enabled: true, host: '127.0.0.1', port: 2775 });
    expect(added.body).toMatchObject({ system_id: 'acme', throughput: 50, window: 10, bind: 'transceiver' });
    expect(JSON.stringify(added.body)).not.toContain('sekrit12');
    const stored = await api.h.ctx.db.kysely
      .selectFrom('carriers')
      .selectAll()
      .where('name', '=', 'telcel1')
      .executeTakeFirstOrThrow();
    expect(stored.password_enc).not.toBeNull();
    expect(stored.password_enc).not.toContain('sekrit12');

    const again = await call('POST', '/carriers', { ...smpp, name: 'telcel1' });
    expect([again.status, again.body.code]).toEqual([409, 'op_carrier_exists']);
    const changed = await call('PATCH', '/carriers/telcel1', {
      window: 20,
      password: 'nuevo123',
      min_delivery_rate: 0.8,
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'telcel1', window: 20, throughput: 50, min_delivery_rate: 0.8 });
    expect(JSON.stringify(changed.body)).not.toContain('nuevo123');
    const after = await api.h.ctx.db.kysely
      .selectFrom('carriers')
      .selectAll()
      .where('name', '=', 'telcel1')
      .executeTakeFirstOrThrow();
    expect(after.password_enc).not.toBe(stored.password_enc);
    expect(after.version).toBeGreaterThan(stored.version);

    expect((await call('DELETE', '/carriers/telcel1')).body).toEqual({ removed: true });
    expect((await call('DELETE', '/carriers/telcel1')).status).toBe(404);
    const entries = await listAudit(api.h.ctx.db.kysely, { since: 0, actor: 'netops' });
    const mine = entries.filter((e) => e.target === 'telcel1');
    expect(mine.map((e) => e.action)).toEqual(['carriers.remove', 'carriers.set', 'carriers.add']);
    expect(mine[2]).toMatchObject({ actor: 'token:netops', detail: { host: '127.0.0.1', port: 2775 } });
    expect(JSON.stringify(entries)).not.toMatch(/sekrit12|nuevo123/);
  });

  it('refuses bad connectors with a clear 400, never a 500', async () => {
    const refused = async (method: string, path: string, body: unknown, code: string) => {
      const r = await call(method, path, body);
      expect([r.status, r.body.code], JSON.stringify(body)).toEqual([400, code]);
      return r.body.message as string;
    };
    await refused('POST', '/carriers', { ...smpp, name: 'x', port: 70000 }, 'op_carrier_invalid');
    await refused('POST', '/carriers', { ...smpp, name: 'x', password: '123456789' }, 'op_carrier_invalid');
    await refused('POST', '/carriers', { ...smpp, kind: 'fax', name: 'x' }, 'op_carrier_invalid');
    await refused('POST', '/carriers', { ...smpp, name: 'bad name!' }, 'op_carrier_invalid');
    expect(
      await refused('POST', '/carriers', { ...smpp, name: 'x', tls_ca: '/nonexistent/ca.pem' }, 'op_carrier_invalid'),
    ).toContain('no file');
    await refused('POST', '/carriers', { ...smpp, name: 'x', colour: 'red' }, 'op_field_unknown');
    await call('POST', '/carriers', { ...smpp, name: 'movi1' });
    expect(await refused('PATCH', '/carriers/movi1', { phone_number_id: '123' }, 'op_carrier_invalid')).toContain(
      'not a setting of a smpp connector',
    );
    await refused('PATCH', '/carriers/movi1', { min_delivery_rate: 2 }, 'op_carrier_invalid');
    await refused('PATCH', '/carriers/movi1', { secrets: { auth_token: 'x' } }, 'op_carrier_invalid');
    expect((await call('PATCH', '/carriers/nadie', { window: 2 })).status).toBe(404);
  });

  it('sets costs, adds routes with their id and removes them by it; a carrier in a route stays', async () => {
    await call('POST', '/carriers', { ...smpp, name: 'att1' });
    await call('POST', '/carriers', { ...smpp, name: 'att2' });
    expect((await call('PUT', '/carriers/att1/costs/52', { cost: 0.0123 })).body).toEqual({
      name: 'att1',
      prefix: '52',
      cost: '0.0123',
    });
    expect((await call('PUT', '/carriers/att1/costs/5255', { cost: '0.01' })).body.cost).toBe('0.0100');
    for (const [path, body] of [
      ['/carriers/att1/costs/52', { cost: 0.00001 }],
      ['/carriers/att1/costs/5x', { cost: 1 }],
      ['/carriers/att1/costs/52', { cost: 'mucho' }],
    ] as const)
      expect((await call('PUT', path, body)).body.code).toBe('op_cost_invalid');
    expect((await call('PUT', '/carriers/nadie/costs/52', { cost: 1 })).status).toBe(404);

    const a = await api.h.createAccount();
    const route = await call('POST', '/routes', {
      channel: 'sms',
      prefix: '52',
      carriers: ['att1', 'att2'],
      account_id: a.id,
      strategy: 'weighted',
      weights: [70, 30],
    });
    expect(route.status).toBe(201);
    expect(route.body).toEqual({
      id: expect.any(Number),
      channel: 'sms',
      prefix: '52',
      carriers: ['att1', 'att2'],
      account: a.email,
      strategy: 'weighted',
      weights: [70, 30],
    });
    const listed = (await call('GET', '/routes')).body.routes;
    expect(listed).toContainEqual({ ...route.body });
    const inUse = await call('DELETE', '/carriers/att2');
    expect([inUse.status, inUse.body.code]).toEqual([409, 'op_carrier_in_use']);
    for (const body of [
      { channel: 'fax', prefix: '52', carriers: ['att1'] },
      { channel: 'sms', prefix: '52', carriers: [] },
      { channel: 'sms', prefix: '52', carriers: ['nadie'] },
      { channel: 'sms', prefix: '52', carriers: ['att1', 'att2'], strategy: 'weighted', weights: [1] },
      { channel: 'rcs', prefix: '52', carriers: ['att1'] },
    ])
      expect((await call('POST', '/routes', body)).body.code, JSON.stringify(body)).toBe('op_route_invalid');
    expect(
      (await call('POST', '/routes', { channel: 'sms', prefix: '52', carriers: ['att1'], account_id: 999999 })).status,
    ).toBe(404);

    expect((await call('DELETE', `/routes/${route.body.id}`)).body).toEqual({ removed: true });
    expect((await call('DELETE', `/routes/${route.body.id}`)).status).toBe(404);
    expect((await call('DELETE', '/routes/0x1')).status).toBe(404);
    expect((await call('DELETE', '/carriers/att2')).body).toEqual({ removed: true });
    const actions = (await listAudit(api.h.ctx.db.kysely, { since: 0, actor: 'netops' })).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['routes.add', 'routes.remove', 'carriers.costs.set']));
  });

  it('adds a provider connector with its secrets as an object, sealed, never answered nor recorded', async () => {
    const secrets = { access_token: 'EAAGtoken1', app_secret: 'appsecret1', verify_token: 'verify1' };
    const missing = await call('POST', '/carriers', {
      kind: 'whatsapp-cloud',
      name: 'wa1',
      phone_number_id: '1234',
      secrets: { access_token: 'x' },
    });
    expect([missing.status, missing.body.code]).toEqual([400, 'op_carrier_invalid']);
    expect(missing.body.message).toContain('secrets.app_secret');
    const added = await call('POST', '/carriers', {
      kind: 'whatsapp-cloud',
      name: 'wa1',
      phone_number_id: '1234',
      secrets,
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      name: 'wa1',
      type: 'whatsapp-cloud',
      phone_number_id: '1234',
      graph_version: 'v21.0',
    });
    const wrong = await call('PATCH', '/carriers/wa1', { password: 'abc' });
    expect([wrong.status, wrong.body.code]).toEqual([400, 'op_carrier_invalid']);
    expect((await call('PATCH', '/carriers/wa1', { messages_per_second: 10 })).body.messages_per_second).toBe(10);
    const entries = JSON.stringify(await listAudit(api.h.ctx.db.kysely, { since: 0, actor: 'netops' }));
    expect(entries).not.toMatch(/EAAGtoken1|appsecret1|verify1/);
    expect(JSON.stringify(added.body)).not.toMatch(/EAAGtoken1|appsecret1/);
  });

  it('refuses every write to a read-only token', async () => {
    const reader = await api.token('reader', true);
    const r = await api.call('POST', '/carriers', { token: reader, body: { ...smpp, name: 'ro1' } });
    expect([r.status, r.body.code]).toEqual([403, 'op_read_only']);
    expect(api.validated).toBeGreaterThan(30);
  });
});
