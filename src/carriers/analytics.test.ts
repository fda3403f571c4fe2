import { afterAll, beforeAll, expect, it } from 'vitest';
import { allSettled } from '../../test/helpers/settled.js';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { SMPP_ENV } from '../../test/helpers/smpp-suite.js';
import { routingTools } from '../../test/helpers/routing.js';

/** `carriers stats` per connector and per cost prefix, with what the connectors counted at hand-off, over real SMSCs. */
describeEngines('carrier analytics', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { carrier, cli, setCost, route, numbers, sendAll } = routingTools(() => h);
  const allFinal = (rows: Array<{ reference: string }>) =>
    allSettled(h.ctx.db.kysely, (q) =>
      q.where(
        'reference',
        'in',
        rows.map((r) => r.reference),
      ),
    );
  const stats = async (...args: string[]) => (await cli('carriers', 'stats', '--since', '1h', ...args)).carriers;

  it('shows each connector per destination prefix it was handed over at, and in total', async () => {
    const c = await carrier({
      receipt: (s) => ({ stat: s.destination.startsWith('525582') ? 'UNDELIV' : 'DELIVRD', delayMs: 10 }),
    });
    await setCost(c.name, '525581', 100);
    await setCost(c.name, '525582', 200);
    await route('52558', [c.name], 'priority');
    const a = await h.createAccount(100);
    await allFinal([
      ...(await sendAll(a.apikey, numbers('525581', 3))),
      ...(await sendAll(a.apikey, numbers('525582', 2))),
      ...(await sendAll(a.apikey, numbers('525583', 1))),
    ]);
    const rows = (await stats('--by', 'prefix')).filter((r: { name: string }) => r.name === c.name);
    const shape = { pending: 0, throttled: null, refused: null, errors: null, demoted: false };
    expect(rows).toMatchObject([
      { ...shape, name: c.name, prefix: '', submitted: 1, delivered: 1, failed: 0, delivery_rate: 1 },
      { ...shape, name: c.name, prefix: '525581', submitted: 3, delivered: 3, failed: 0, delivery_rate: 1 },
      { ...shape, name: c.name, prefix: '525582', submitted: 2, delivered: 0, failed: 2, delivery_rate: 0 },
    ]);
    for (const r of rows) {
      expect(r.receipt_p50_ms).toBeGreaterThanOrEqual(0);
      expect(r.receipt_p95_ms).toBeGreaterThanOrEqual(r.receipt_p50_ms);
    }
    const [total] = (await stats()).filter((r: { name: string }) => r.name === c.name);
    expect(total).toMatchObject({ submitted: 6, delivered: 4, failed: 2, delivery_rate: 0.6667, throttled: 0 });
    expect(total).not.toHaveProperty('prefix');
    expect((await cli('carriers', 'stats', '--by', 'number')).error).toMatch(/--by/);
  });

  it('counts throttling answers, refusals and errors at hand-off in the database, beyond the connector that saw them', async () => {
    const c = await carrier({
      // Throttled twice (then accepted on retry), one transient error (sent again later), one number refused for good.
      answer: (s, i) =>
        i < 2
          ? { status: 0x58 }
          : i === 2
            ? { status: 0x08 }
            : s.destination.endsWith('99')
              ? { status: 0x0b }
              : 'accept',
      receipt: () => ({ stat: 'DELIVRD' }),
    });
    await route('525584', [c.name], 'priority');
    const a = await h.createAccount(100);
    const sent = await h.post('/sms/send', { numbers: '5584000001,5584000099', message: 'Hola' }, a.apikey);
    expect(sent.body.code).toBe('sms_11');
    await eventually(async () => {
      const rows = await h.ctx.db.kysely.selectFrom('messages').select('stage').where('carrier', '=', c.name).execute();
      return rows.length === 2 && rows.every((m) => m.stage === 2);
    }, 20_000);
    const counted = { throttled: 2, refused: 1, errors: 1 };
    await eventually(async () => {
      await h.ctx.carriers.manager.refreshNow();
      const [row] = (await stats()).filter((r: { name: string }) => r.name === c.name);
      return row.throttled === 2 && row.refused === 1 && row.errors === 1;
    });
    // The connector is rebuilt (its own counters start again at zero): the counts stay.
    expect((await cli('carriers', 'disable', '--name', c.name)).error).toBeUndefined();
    expect((await cli('carriers', 'enable', '--name', c.name)).error).toBeUndefined();
    await h.ctx.carriers.manager.refreshNow();
    await h.ctx.carriers.manager.refreshNow();
    const status = (await cli('carriers', 'status')).carriers.find((r: { name: string }) => r.name === c.name);
    expect(status.throttled).toBe(0);
    const [after] = (await stats()).filter((r: { name: string }) => r.name === c.name);
    expect(after).toMatchObject({ ...counted, submitted: 1, delivered: 1 });
    const rows = await h.ctx.db.kysely
      .selectFrom('carrier_event_counts')
      .selectAll()
      .where('carrier', '=', c.name)
      .execute();
    expect(rows.length).toBeGreaterThanOrEqual(1);
    for (const r of rows) expect(Number(r.minute) % 60_000).toBe(0);
  });
});
