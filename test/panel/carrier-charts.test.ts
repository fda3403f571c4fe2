import { afterAll, beforeAll, expect, it } from 'vitest';
import { allSettled } from '../helpers/settled.js';
import { describeEngines, startHarness, type Harness } from '../helpers/harness.js';
import { createOperator } from '../helpers/panel.js';
import { panelPage, panelSignin } from '../helpers/panel-http.js';
import { afterPoll, PRICES_ENV, priceTools } from '../helpers/prices.js';
import { formatLocalDate } from '../../src/lib/time.js';

const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
const cellsOf = (row: string) =>
  [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1].replace(/\s+/g, ' ').trim());

/** The carrier analytics page by destination prefix, with hand-off counters, and its charts per day. */
describeEngines('operator panel: carrier analytics by prefix and over time', (engine) => {
  let h: Harness;
  let session: string;
  beforeAll(async () => {
    h = await startHarness(engine, { env: PRICES_ENV });
    await createOperator(h, 'ops@example.com', 'operator pass 1');
    session = (await panelSignin(h, 'ops@example.com', 'operator pass 1')).session!;
  });
  afterAll(() => h.close());
  const { ok, send } = priceTools(() => h);

  it('shows figures per carrier and cost prefix, the hand-off counters per carrier, and charts per Mexico City day', async () => {
    await ok('carriers', 'costs', 'set', '--name', 'simulator', '--prefix', '5255', '--cost', '0.01');
    await h.ctx.carriers.manager.refreshNow();
    await afterPoll();
    const a = await h.createAccount(10);
    await send(a.apikey, '5512345678,5550000005,3312345678');
    await allSettled(h.ctx.db.kysely);
    const byPrefix = String((await panelPage(h, session, '/panel/operator/carriers?since=7d&by=prefix')).body);
    const rows = [...byPrefix.matchAll(/<tr data-carrier="simulator" data-prefix="(\d*)">([\s\S]*?)<\/tr>/g)];
    expect(rows.map((r) => [r[1], ...cellsOf(r[2]).slice(1, 7)])).toEqual([
      ['', '—', '1', '1', '0', '0', '100.0 %'],
      ['5255', '+5255', '2', '1', '1', '0', '50.0 %'],
    ]);
    expect(byPrefix).not.toContain('data-event=');
    expect(byPrefix).toMatch(/<option value="prefix"\s+selected/);

    const byCarrier = String((await panelPage(h, session, '/panel/operator/carriers?since=7d')).body);
    const row = /<tr data-carrier="simulator">([\s\S]*?)<\/tr>/.exec(byCarrier)![1];
    expect([...row.matchAll(/data-event="(\w+)">(\d+)</g)].map((m) => [m[1], m[2]])).toEqual([
      ['throttled', '0'],
      ['refused', '0'],
      ['errors', '0'],
    ]);
    // A week: one slot per Mexico City day, today's last.
    const volume = JSON.parse(unescape(/data-chart="([^"]+)"/.exec(byCarrier)![1]));
    const today = formatLocalDate(Date.now());
    expect(volume.days.at(-1)).toBe(today);
    expect(volume.days.length).toBeGreaterThanOrEqual(7);
    expect(volume.series.simulator.at(-1)).toBe(3);
    const rate = JSON.parse(unescape(/data-line-chart="([^"]+)"/.exec(byCarrier)![1]));
    expect(rate.x).toEqual(volume.days);
    expect(rate.series.simulator.at(-1)).toBe(66.7);
    expect([rate.min, rate.max, rate.unit]).toEqual([0, 100, ' %']);

    // Unknown choices fall back to the defaults; nothing of them is echoed.
    const odd = String((await panelPage(h, session, '/panel/operator/carriers?since=9y&by=%22%3E%3Cb%3E')).body);
    expect(odd).toMatch(/<option value="1h"\s+selected/);
    expect(odd).toMatch(/<option value="carrier"\s+selected/);
    expect(odd).not.toContain('"><b>');
  });
});
