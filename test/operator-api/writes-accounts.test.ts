import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { startOperatorApi, type OperatorApi } from '../helpers/operator-api.js';
import { listAudit } from '../../src/audit/service.js';
import { smsCommands } from '../../src/features/sms/cli.js';
import { runCommands } from '../helpers/cli.js';

/** SMPP users, senders, MO routes and account settings over the operator API, every answer checked against the document. */
describeEngines('operator API writes: SMPP users, senders, MO routes, account settings', (engine) => {
  let api: OperatorApi;
  let token: string;
  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { token, body });
  const audited = async () =>
    (await listAudit(api.h.ctx.db.kysely, { since: 0, actor: 'crm' })).map((e) => [e.action, e.target]);
  beforeAll(async () => {
    api = await startOperatorApi(engine);
    token = await api.token('crm');
  }, 60_000);
  afterAll(async () => {
    await api?.h.close();
  });

  it('adds, changes and removes an SMPP user; the password never answered nor recorded', async () => {
    const a = await api.h.createAccount();
    const body = {
      account_id: a.id,
      system_id: 'tienda01',
      password: 'clave123',
      throughput: 20,
      allow_ip: ['10.0.0.0/8'],
    };
    const added = await call('POST', '/smpp-users', body);
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      system_id: 'tienda01',
      email: a.email,
      max_binds: 4,
      throughput: 20,
      window: 10,
      allow_ip: ['10.0.0.0/8'],
      traffic_class: 'auto',
    });
    expect((await call('POST', '/smpp-users', body)).status).toBe(409);
    for (const bad of [
      { ...body, system_id: 'x y' },
      { ...body, system_id: 'otro', password: '123456789' },
      { ...body, system_id: 'otro', max_binds: 0 },
      { ...body, system_id: 'otro', allow_ip: 'nada' },
      { ...body, system_id: 'otro', traffic_class: 'urgente' },
    ])
      expect((await call('POST', '/smpp-users', bad)).body.code, JSON.stringify(bad)).toBe('op_smpp_user_invalid');
    expect((await call('POST', '/smpp-users', { ...body, system_id: 'otro', account_id: 999999 })).status).toBe(404);
    const changed = await call('PATCH', '/smpp-users/tienda01', { window: 50, allow_ip: [], password: 'nueva1' });
    expect(changed.body).toMatchObject({ system_id: 'tienda01', window: 50, throughput: 20, allow_ip: [] });
    expect((await call('PATCH', '/smpp-users/tienda01', { traffic_class: 'bulk' })).body.traffic_class).toBe('bulk');
    expect((await call('PATCH', '/smpp-users/nadie', { window: 5 })).status).toBe(404);
    expect((await call('DELETE', '/smpp-users/tienda01')).body).toEqual({ removed: true });
    expect((await call('DELETE', '/smpp-users/tienda01')).status).toBe(404);
    expect(await audited()).toEqual(
      expect.arrayContaining([
        ['smpp-users.add', 'tienda01'],
        ['smpp-users.set', 'tienda01'],
        ['smpp-users.remove', 'tienda01'],
      ]),
    );
    const entries = await listAudit(api.h.ctx.db.kysely, { since: 0, actor: 'crm' });
    expect(JSON.stringify(entries)).not.toMatch(/clave123|nueva1/);
  });

  it('registers and removes senders: the account’s list holds what is left', async () => {
    const a = await api.h.createAccount(10);
    const added = await call('POST', `/accounts/${a.id}/senders`, { sender: 'TIENDA' });
    expect([added.status, added.body]).toEqual([201, { sender: 'TIENDA', rcs: false }]);
    expect((await call('POST', `/accounts/${a.id}/senders`, { sender: '55123', rcs: true })).body).toEqual({
      sender: '55123',
      rcs: true,
    });
    expect((await call('POST', `/accounts/${a.id}/senders`, { sender: 'demasiado largo' })).body.code).toBe(
      'op_sender_invalid',
    );
    expect((await call('POST', '/accounts/999999/senders', { sender: 'TIENDA' })).status).toBe(404);
    const names = () =>
      api.h.ctx.db.kysely.selectFrom('senders').select('name').where('account_id', '=', a.id).orderBy('name').execute();
    expect((await names()).map((r) => r.name)).toEqual(['55123', 'TIENDA']);
    expect((await call('DELETE', `/accounts/${a.id}/senders?sender=TIENDA`)).body).toEqual({ removed: true });
    expect((await call('DELETE', `/accounts/${a.id}/senders?sender=TIENDA`)).body).toEqual({ removed: false });
    expect((await call('DELETE', `/accounts/${a.id}/senders`)).body.code).toBe('op_sender_invalid');
    expect((await names()).map((r) => r.name)).toEqual(['55123']);
    // `senders remove` is the same change from the command line.
    const cli = (...args: string[]) => runCommands(api.h.ctx, [smsCommands], ['senders', ...args, '--json']);
    expect(await cli('remove', '--email', a.email, '--sender', '55123')).toEqual({ removed: true });
    expect(await cli('remove', '--email', a.email, '--sender', '55123')).toEqual({ removed: false });
    expect(await names()).toEqual([]);
    expect(await audited()).toEqual(expect.arrayContaining([['senders.remove', `account:${a.id} ${a.email}`]]));
  });

  it('adds and removes MO routes; a pair another account holds is refused', async () => {
    const [a, b] = [await api.h.createAccount(), await api.h.createAccount()];
    const route = await call('POST', '/mo-routes', { account_id: a.id, number: '55777', keyword: 'info' });
    expect([route.status, route.body]).toEqual([
      201,
      { id: expect.any(Number), email: a.email, number: '55777', keyword: 'INFO' },
    ]);
    const taken = await call('POST', '/mo-routes', { account_id: b.id, number: '55777', keyword: 'INFO' });
    expect([taken.status, taken.body.code]).toEqual([409, 'op_mo_route_taken']);
    for (const bad of [
      { account_id: a.id },
      { account_id: a.id, number: '12' },
      { account_id: a.id, keyword: 'dos palabras' },
    ])
      expect((await call('POST', '/mo-routes', bad)).body.code).toBe('op_mo_route_invalid');
    expect((await call('DELETE', `/mo-routes/${route.body.id}`)).body).toEqual({ removed: true });
    expect((await call('DELETE', `/mo-routes/${route.body.id}`)).status).toBe(404);
  });

  it('changes account settings as accounts set does, refusing what it refuses', async () => {
    const a = await api.h.createAccount();
    const set = await call('PATCH', `/accounts/${a.id}`, {
      webhook_method: 'get',
      rate_limit: 7,
      price_sms: '0.45',
      low_balance: 5,
      long_sms: true,
      optout_confirmation: 'Baja confirmada',
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      id: a.id,
      email: a.email,
      webhook_method: 'GET',
      rate_limit_per_sec: 7,
      low_balance: 5,
      long_sms: true,
      optouts: { confirmation: 'Baja confirmada' },
    });
    expect(set.body.prices.sms).toBe(0.45);
    expect((await call('PATCH', `/accounts/${a.id}`, {})).body).toEqual(set.body);
    for (const bad of [{ webhook_method: 'PUT' }, { rate_limit: 0 }, { price_sms: -1 }, { allow_ip: 'not-an-ip' }]) {
      const r = await call('PATCH', `/accounts/${a.id}`, bad);
      expect([r.status, r.body.code], JSON.stringify(bad)).toEqual([400, 'op_settings_invalid']);
    }
    expect((await call('PATCH', `/accounts/${a.id}`, { colour: 'red' })).body.code).toBe('op_field_unknown');
    expect((await call('PATCH', '/accounts/999999', { rate_limit: 2 })).status).toBe(404);
    const entry = (await listAudit(api.h.ctx.db.kysely, { since: 0, actor: 'crm' })).find(
      (e) => e.action === 'accounts.set' && e.detail.rate_limit !== undefined,
    );
    expect(entry).toMatchObject({ target: `account:${a.id} ${a.email}`, detail: { rate_limit: 7 } });
    expect(api.validated).toBeGreaterThan(20);
  });
});
