import { afterAll, beforeAll, expect, it } from 'vitest';
import { allSettled } from '../../test/helpers/settled.js';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { SMPP_ENV } from '../../test/helpers/smpp-suite.js';
import { routingTools } from '../../test/helpers/routing.js';
import { evaluateQuality } from './quality.js';

describeEngines('quality-aware failover with real SMSCs', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { carrier, cli, setCost, route, numbers, sendAll, byCarrier } = routingTools(() => h);
  const metrics = async () => (await h.app.inject({ method: 'GET', url: '/metrics' })).body;
  const allFinal = (rows: Array<{ reference: string }>) =>
    allSettled(h.ctx.db.kysely, (q) =>
      q.where(
        'reference',
        'in',
        rows.map((r) => r.reference),
      ),
    );
  const stats = async (name: string) =>
    (await cli('carriers', 'stats', '--since', '1h')).carriers.find((c: { name: string }) => c.name === name);

  it('demotes a carrier whose receipts fall below its minimum, probes it with one message in ten, and brings it back when it delivers again', async () => {
    const plan = { stat: 'UNDELIV' };
    const flaky = await carrier({ receipt: () => ({ ...plan }) });
    const steady = await carrier({ receipt: () => ({ stat: 'DELIVRD' }) });
    await setCost(flaky.name, '525571', 100);
    await setCost(steady.name, '525571', 150);
    await route('525571', [flaky.name, steady.name], 'least-cost');
    const a = await h.createAccount(1000);
    // Three accounts' failures: one account's alone never demotes a shared carrier (quality-accounts.test.ts).
    const [b, c] = [await h.createAccount(10), await h.createAccount(10)];

    const first = [
      ...(await sendAll(a.apikey, numbers('525571', 4))),
      ...(await sendAll(b.apikey, numbers('525571', 3, 4))),
      ...(await sendAll(c.apikey, numbers('525571', 3, 7))),
    ];
    expect(byCarrier(first)).toEqual({ [flaky.name]: 10 });
    await allFinal(first);
    // The minimum set once its receipts are in: the demotion comes from them, not from how the sends were batched.
    const set = await cli(
      'carriers',
      'set',
      '--name',
      flaky.name,
      '--min-delivery-rate',
      '0.8',
      '--quality-window-minutes',
      '10',
      '--quality-min-messages',
      '5',
    );
    expect(set).toMatchObject({
      name: flaky.name,
      min_delivery_rate: 0.8,
      quality_window_minutes: 10,
      quality_min_messages: 5,
    });
    await eventually(async () => h.ctx.carriers.manager.demoted.has(flaky.name));
    const row = await h.ctx.db.kysely
      .selectFrom('carrier_quality')
      .selectAll()
      .where('carrier', '=', flaky.name)
      .executeTakeFirstOrThrow();
    expect(row.demoted_at).not.toBeNull();
    expect(await stats(flaky.name)).toMatchObject({
      submitted: 10,
      delivered: 0,
      failed: 10,
      pending: 0,
      delivery_rate: 0,
      demoted: true,
    });

    const demoted = await sendAll(a.apikey, numbers('525571', 30, 100));
    expect(byCarrier(demoted)).toEqual({ [flaky.name]: 3, [steady.name]: 27 });
    expect(demoted.filter((m) => m.carrier === flaky.name).map((m) => m.route_reason)).toEqual(Array(3).fill('probe'));
    expect(demoted.find((m) => m.carrier === steady.name)!.route_reason).toBe(
      `least-cost 0.0150, skipping demoted ${flaky.name}`,
    );
    await allFinal(demoted);
    expect(h.ctx.carriers.manager.demoted.has(flaky.name)).toBe(true);

    // It delivers again: the probes bring it back (12 of 15 probes since the demotion reach 0.8).
    plan.stat = 'DELIVRD';
    for (let round = 0; round < 10 && h.ctx.carriers.manager.demoted.has(flaky.name); round++) {
      await allFinal(await sendAll(a.apikey, numbers('525571', 50, 1000 + round * 50)));
      await h.ctx.carriers.manager.refreshNow();
    }
    expect(h.ctx.carriers.manager.demoted.has(flaky.name)).toBe(false);
    const [back] = await sendAll(a.apikey, numbers('525571', 1, 9000));
    expect([back.carrier, back.route_reason]).toEqual([flaky.name, 'least-cost 0.0100']);

    const text = await metrics();
    expect(text).toContain(`mensajero_carrier_quality_changes_total{carrier="${flaky.name}",change="demoted"} 1`);
    expect(text).toContain(`mensajero_carrier_quality_changes_total{carrier="${flaky.name}",change="recovered"} 1`);
    expect(text).toContain(`mensajero_carrier_demoted{carrier="${flaky.name}"} 0`);
  });

  it('stats: per-carrier figures, null rate and percentiles without receipts, time from hand-off to receipt', async () => {
    const quiet = await carrier();
    const fast = await carrier({ receipt: () => ({ stat: 'DELIVRD', delayMs: 20 }) });
    await route('525572', [fast.name, quiet.name], 'priority');
    const a = await h.createAccount(100);
    await allFinal(await sendAll(a.apikey, numbers('525572', 4)));
    expect(await stats(quiet.name)).toEqual({
      name: quiet.name,
      submitted: 0,
      delivered: 0,
      failed: 0,
      pending: 0,
      delivery_rate: null,
      receipt_p50_ms: null,
      receipt_p95_ms: null,
      throttled: 0,
      refused: 0,
      errors: 0,
      demoted: false,
    });
    const f = await stats(fast.name);
    expect(f).toMatchObject({ submitted: 4, delivered: 4, failed: 0, pending: 0, delivery_rate: 1 });
    expect(f.receipt_p95_ms).toBeGreaterThanOrEqual(f.receipt_p50_ms);
    expect((await cli('carriers', 'stats', '--since', 'yesterday')).error).toMatch(/--since/);
  });

  it('counts a receipt once for its carrier, also when it came before the hand-off was recorded', async () => {
    const early = await carrier({ receipt: () => ({ stat: 'UNDELIV', beforeResponse: true }) });
    const normal = await carrier({ receipt: () => ({ stat: 'DELIVRD' }) });
    await route('525573', [early.name], 'priority');
    await route('525574', [normal.name], 'priority');
    const a = await h.createAccount(100);
    const sent = [
      ...(await sendAll(a.apikey, numbers('525573', 3))),
      ...(await sendAll(a.apikey, numbers('525574', 2))),
    ];
    await allFinal(sent);
    const counts = await h.ctx.db.kysely
      .selectFrom('carrier_receipt_counts')
      .select((eb) => [
        'carrier',
        eb.fn.sum<number>('delivered').as('delivered'),
        eb.fn.sum<number>('failed').as('failed'),
      ])
      .where('carrier', 'in', [early.name, normal.name])
      .groupBy('carrier')
      .orderBy('carrier')
      .execute();
    expect(counts.map((c) => [c.carrier, Number(c.delivered), Number(c.failed)])).toEqual([
      [early.name, 0, 3],
      [normal.name, 2, 0],
    ]);
  });

  it('one demotion however many processes evaluate at once; removing the threshold brings it back', async () => {
    const name = 'ghost';
    // This process's own upkeep evaluates too: its changes are in the metric.
    const byUpkeep = async (change: string) => {
      const m = new RegExp(
        `mensajero_carrier_quality_changes_total\\{carrier="${name}",change="${change}"\\} (\\d+)`,
      ).exec(await metrics());
      return m ? Number(m[1]) : 0;
    };
    const now = Date.now();
    await h.ctx.db.kysely
      .insertInto('carrier_receipt_counts')
      .values({ carrier: name, bucket: now - (now % 10_000) - 10_000, delivered: 4, failed: 6 })
      .execute();
    await h.ctx.db.kysely
      .insertInto('carrier_quality')
      .values({ carrier: name, min_delivery_rate: 9000, window_minutes: 10, min_messages: 5 })
      .execute();
    const runs = await Promise.all(Array.from({ length: 6 }, () => evaluateQuality(h.ctx.db.kysely, Date.now())));
    const changes = runs.flatMap((r) => r.changes);
    expect(changes.length + (await byUpkeep('demoted'))).toBe(1);
    for (const c of changes)
      expect(c).toEqual({ carrier: name, change: 'demoted', rate: 0.4, receipts: 10, threshold: 0.9 });
    expect(runs.every((r) => r.demoted.has(name))).toBe(true);

    const connector = ['--name', name, '--host', '127.0.0.1', '--port', '1', '--system-id', 'x', '--password', 'x'];
    expect((await cli('carriers', 'add', 'smpp', ...connector)).error).toBeUndefined();
    expect(await cli('carriers', 'set', '--name', name, '--min-delivery-rate', '1.5')).toMatchObject({
      error: expect.stringMatching(/--min-delivery-rate/),
    });
    // Quality settings alone leave the connector as it is (no rebind) and apply to any kind, the simulator too.
    const version = async () =>
      (
        await h.ctx.db.kysely
          .selectFrom('carriers')
          .select('version')
          .where('name', '=', name)
          .executeTakeFirstOrThrow()
      ).version;
    const before = await version();
    expect(await cli('carriers', 'set', '--name', 'simulator', '--quality-min-messages', '20')).toMatchObject({
      name: 'simulator',
      quality_min_messages: 20,
      min_delivery_rate: null,
    });
    // Without a minimum the connector cannot stay demoted: the answer already says so, and no evaluation has a
    // recovery left to report.
    expect(await cli('carriers', 'set', '--name', name, '--min-delivery-rate', 'off')).toMatchObject({
      min_delivery_rate: null,
      demoted: false,
    });
    expect(await version()).toBe(before);
    const after = await Promise.all(Array.from({ length: 3 }, () => evaluateQuality(h.ctx.db.kysely, Date.now())));
    expect(after.flatMap((r) => r.changes)).toEqual([]);
    expect(after.some((r) => r.demoted.has(name))).toBe(false);
  });
});
