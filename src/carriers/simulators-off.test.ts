import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { routesCheck } from '../doctor/checks.js';
import { matchRoute, routesWithout, type RouteEntry } from './routing.js';
import { listCarriers, replaceRoute, setCarrierEnabled } from './store.js';

describe('routes with the simulators off', () => {
  const routes: RouteEntry[] = [
    { channel: 'sms', prefix: '', accountId: 0, carriers: ['simulator'] },
    {
      channel: 'sms',
      prefix: '1',
      accountId: 0,
      carriers: ['acme', 'simulator'],
      strategy: 'weighted',
      weights: [60, 40],
    },
    { channel: 'sms', prefix: '1', accountId: 7, carriers: ['simulator'] },
  ];

  it('drops the simulator from every route, and a route left empty, so the next route applies', () => {
    const usable = routesWithout(routes, 'simulator');
    expect(usable).toEqual([{ ...routes[1], carriers: ['acme'], weights: [60] }]);
    // Account 7's own route named only the simulator: its traffic to +1 takes the shared route.
    expect(matchRoute(usable, 'sms', '12125550100', 7)?.carriers).toEqual(['acme']);
    expect(matchRoute(usable, 'sms', '525512345678', 7)).toBeNull();
  });
});

describeEngines('SIMULATORS=false', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { SIMULATORS: 'false' } });
  });
  afterAll(() => h.close());

  const message = (reference: string) =>
    h.ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();

  it('refuses and refunds at once a message whose only route names the simulator, never leaves it queued', async () => {
    const a = await h.createAccount(3);
    const r = await h.post('/sms/send', { numbers: '2125550100', country_code: '1', message: 'Hola' }, a.apikey);
    expect(r.body.code).toBe('sms_11');
    const reference = r.body.references[0].reference;
    const closed = await eventually(async () => {
      const m = await message(reference);
      return m.stage === 2 ? m : null;
    }, 10_000);
    expect(closed).toMatchObject({ status: 'undelivered', dlr_code: 12, carrier: null });
    expect(Number(closed.refunded)).toBe(1);
    expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(3);
  });

  it('doctor names the routes whose carrier is off: the simulator, and a carrier the operator disabled', async () => {
    const config = h.ctx.config;
    const state = { env: {}, config, db: h.ctx.db, migrated: true };
    const before = await routesCheck(state);
    expect(before.status).toBe('warn');
    expect(before.detail).toMatch(/sms "" → simulator \(SIMULATORS is off\)/);
    expect(before.detail).toMatch(/refused \(status 12\) and refunded/);

    await h.ctx.db.kysely
      .insertInto('carriers')
      .values({ name: 'acme', type: 'smpp', enabled: 0, settings: '{}', version: 1, created_at: 0, updated_at: 0 })
      .execute();
    await replaceRoute(h.ctx.db.kysely, { channel: 'voice', prefix: '57', accountId: 0, carriers: ['acme'] });
    expect((await routesCheck(state)).detail).toMatch(/voice "57" → acme \(disabled\)/);

    const on = await routesCheck({ ...state, config: { ...config, SIMULATORS: true } });
    expect(on.detail).not.toMatch(/simulator/);
    const acme = (await listCarriers(h.ctx.db.kysely)).find((c) => c.name === 'acme')!;
    await setCarrierEnabled(h.ctx.db.kysely, acme.id, 1);
    await h.ctx.db.kysely.deleteFrom('carrier_routes').where('carriers', 'like', '%simulator%').execute();
    expect(await routesCheck({ ...state, config })).toMatchObject({ status: 'ok' });
  });
});
