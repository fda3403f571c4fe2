import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { SMPP_ENV } from '../../test/helpers/smpp-suite.js';
import { routingTools } from '../../test/helpers/routing.js';
import { routesCheck } from '../doctor/checks.js';
import { replaceRoute } from './store.js';

const delivered = { receipt: () => ({ stat: 'DELIVRD' }) };

describeEngines('route strategies with real SMSCs', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { carrier, cli, setCost, route, numbers, sendAll, byCarrier } = routingTools(() => h);

  it('least-cost sends each message through the cheapest carrier that is up, and records why', async () => {
    const dear = await carrier(delivered);
    const cheap = await carrier(delivered);
    await setCost(dear.name, '52', 120);
    await setCost(cheap.name, '525561', 100);
    await setCost(cheap.name, '52556199', 200);
    await route('525561', [dear.name, cheap.name], 'least-cost');
    const a = await h.createAccount(100);
    const sent = await sendAll(a.apikey, [...numbers('525561', 4), '5561990001']);
    expect(sent.map((m) => [m.carrier, m.route_reason])).toEqual([
      ...Array(4).fill([cheap.name, 'least-cost 0.0100']),
      [dear.name, 'least-cost 0.0120'],
    ]);
    expect(cheap.smsc.submitted).toHaveLength(4);

    // The cheapest one down: the next cheapest that is up takes it.
    expect((await cli('carriers', 'disable', '--name', cheap.name)).error).toBeUndefined();
    await eventually(async () => !h.ctx.carriers.manager.health.up(cheap.name));
    const [m] = await sendAll(a.apikey, numbers('525561', 1, 50));
    expect([m.carrier, m.route_reason]).toEqual([dear.name, 'least-cost 0.0120']);
  });

  it('a carrier without a cost for the destination comes last; ties keep the route order', async () => {
    const unpriced = await carrier(delivered);
    const first = await carrier(delivered);
    const second = await carrier(delivered);
    await setCost(first.name, '525562', 100);
    await setCost(second.name, '525562', 100);
    await route('525562', [unpriced.name, first.name, second.name], 'least-cost');
    const a = await h.createAccount(100);
    const sent = await sendAll(a.apikey, numbers('525562', 3));
    expect(byCarrier(sent)).toEqual({ [first.name]: 3 });
  });

  it('weighted shares the messages exactly by the weights (deterministic round-robin)', async () => {
    const heavy = await carrier(delivered);
    const light = await carrier(delivered);
    await route('525563', [heavy.name, light.name], 'weighted', ['--weights', '70,30']);
    const a = await h.createAccount(1000);
    const sent = await sendAll(a.apikey, numbers('525563', 100));
    expect(byCarrier(sent)).toEqual({ [heavy.name]: 70, [light.name]: 30 });
    expect(new Set(sent.map((m) => m.route_reason))).toEqual(new Set(['weighted']));
    expect([heavy.smsc.submitted.length, light.smsc.submitted.length]).toEqual([70, 30]);
  });

  it('priority fails over to the next carrier when the first refuses for now, and says so', async () => {
    const busy = await carrier({ answer: () => ({ status: 0x08 }) });
    const spare = await carrier(delivered);
    await route('525564', [busy.name, spare.name], 'priority');
    const a = await h.createAccount(100);
    const [m] = await sendAll(a.apikey, numbers('525564', 1));
    expect([m.carrier, m.route_reason]).toEqual([spare.name, `failover from ${busy.name}`]);
  });

  it('routes list shows each strategy and explains the choice, with the costs at the prefix', async () => {
    const x = await carrier(delivered);
    const y = await carrier(delivered);
    await setCost(x.name, '525565', 150);
    await route('525565', [x.name, y.name], 'least-cost');
    await route('525566', [x.name, y.name], 'weighted', ['--weights', '3,1']);
    const { routes } = await cli('routes', 'list');
    expect(routes.find((r: any) => r.prefix === '525565')).toMatchObject({
      strategy: 'least-cost',
      explain: expect.stringContaining(`${x.name} 0.0150, ${y.name} no cost`),
    });
    expect(routes.find((r: any) => r.prefix === '525566')).toMatchObject({
      strategy: 'weighted',
      weights: [3, 1],
      explain: expect.stringContaining('shared 3/1'),
    });
  });

  it('refuses a bad strategy or weights with a clear error', async () => {
    const x = await carrier(delivered);
    const add = (...extra: string[]) =>
      cli('routes', 'add', '--channel', 'sms', '--prefix', '525567', '--carriers', `${x.name},simulator`, ...extra);
    expect((await add('--strategy', 'cheapest')).error).toMatch(/--strategy is one of/);
    expect((await add('--strategy', 'weighted', '--weights', '70')).error).toMatch(/one weight per carrier/);
    expect((await add('--strategy', 'weighted', '--weights', '0,0')).error).toMatch(/at least one weight/);
    expect((await add('--strategy', 'weighted', '--weights', '-1,2')).error).toMatch(/whole numbers/);
    expect((await add('--weights', '1,2')).error).toMatch(/goes with --strategy weighted/);
    expect((await add()).strategy).toBe('priority');
  });

  it('refuses an RCS route through an SMPP connector (it would send SMS parts charged as one RCS message); doctor names one kept from before', async () => {
    const x = await carrier(delivered);
    const rcs = await cli('routes', 'add', '--channel', 'rcs', '--prefix', '52', '--carriers', `simulator,${x.name}`);
    expect(rcs.error).toMatch(new RegExp(`--carriers ${x.name}: an SMPP connector sends SMS`));
    expect(rcs.error).toMatch(/charged as one RCS message/);
    const routes = await h.ctx.db.kysely
      .selectFrom('carrier_routes')
      .selectAll()
      .where('channel', '=', 'rcs')
      .execute();
    expect(routes.map((r) => r.carriers)).not.toContainEqual(expect.stringContaining(x.name));
    expect(
      (await cli('routes', 'add', '--channel', 'sms', '--prefix', '5299', '--carriers', x.name)).error,
    ).toBeUndefined();
    expect(
      (await cli('routes', 'add', '--channel', 'rcs', '--prefix', '5299', '--carriers', 'simulator')).error,
    ).toBeUndefined();
    // A route written before the check: the doctor's routes check names it.
    await replaceRoute(h.ctx.db.kysely, { channel: 'rcs', prefix: '5298', accountId: 0, carriers: [x.name] });
    const check = await routesCheck({ config: h.ctx.config, db: h.ctx.db });
    expect(check.status).toBe('warn');
    expect(check.detail).toContain(`rcs "5298" → ${x.name} (smpp cannot carry rcs)`);
    await cli('routes', 'remove', '--channel', 'rcs', '--prefix', '5298');
  });
});
