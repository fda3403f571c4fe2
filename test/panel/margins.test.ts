import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../helpers/harness.js';
import { createOperator, withPassword } from '../helpers/panel.js';
import { panelPage, panelSignin } from '../helpers/panel-http.js';
import { afterPoll, PRICES_ENV, priceTools } from '../helpers/prices.js';
import { formatLocalDate } from '../../src/lib/time.js';

const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const text = (cell: string) =>
  unescape(
    cell
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
const cellsOf = (row: string) => [...row.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((m) => text(m[1]));

/** The operator's Margins page over HTTP: the same figures as `reports margins`, its chart's data, its CSV. */
describeEngines('panel margins', (engine) => {
  let h: Harness;
  let session: string;
  beforeAll(async () => {
    h = await startHarness(engine, { env: PRICES_ENV });
    await createOperator(h, 'ops@example.com', 'operator pass 1');
    session = (await panelSignin(h, 'ops@example.com', 'operator pass 1')).session!;
  });
  afterAll(() => h.close());
  const { ok, send } = priceTools(() => h);
  const today = formatLocalDate(Date.now());
  const page = async (query: string) => panelPage(h, session, `/panel/operator/margins?${query}`);
  const period = `from=${today}&to=${today}`;

  beforeAll(async () => {
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5255', '--credits', '0.5');
    // More than a part brings in at this credit value: the carrier loses money, the margin is negative.
    await ok('carriers', 'costs', 'set', '--name', 'simulator', '--prefix', '52', '--cost', '0.3');
    await h.ctx.carriers.manager.refreshNow();
    await afterPoll();
    const a = await h.createAccount(10);
    await ok('accounts', 'set', '--email', a.email, '--credit-value', '0.35');
    const b = await h.createAccount(10);
    await send(a.apikey, '5512345678,5512345679,5550000005,5559999001,3312345678');
    await send(b.apikey, '5512345600');
    await eventually(async () => {
      const open = await h.ctx.db.kysely.selectFrom('messages').select('id').where('stage', '<', 2).execute();
      return open.length === 0;
    }, 10_000);
  });

  it('shows the rows and totals of reports margins for each grouping, and a chart per day of the period', async () => {
    for (const by of ['account', 'carrier', 'prefix', 'day']) {
      const report = await ok('reports', 'margins', '--from', today, '--to', today, '--by', by);
      const shown = await page(`by=${by}&${period}`);
      expect(shown.status).toBe(200);
      const body = String(shown.body);
      expect(body).toMatch(new RegExp(`<option value="${by}"\\s+selected`));
      const rows = [...body.matchAll(/<tr data-key="([^"]*)">([\s\S]*?)<\/tr>/g)];
      expect(rows.map((r) => unescape(r[1]))).toEqual(report.rows.map((r: Record<string, string>) => r[by]));
      const fields = ['parts', 'delivered', 'failed', 'revenue', 'cost', 'cost_unknown', 'margin'];
      rows.forEach((r, i) => expect(cellsOf(r[2]).slice(1)).toEqual(fields.map((f) => String(report.rows[i][f]))));
      const totals = /<tr data-testid="margins-totals">([\s\S]*?)<\/tr>/.exec(body)![1];
      expect(cellsOf(totals).slice(1)).toEqual(fields.map((f) => String(report.totals[f])));
      // The chart: revenue, cost and margin of each day of the period (here one), as the report's totals.
      const chart = JSON.parse(unescape(/data-line-chart="([^"]+)"/.exec(body)![1]));
      expect(chart.x).toEqual([today]);
      expect([chart.series.revenue, chart.series.cost, chart.series.margin]).toEqual(
        ['revenue', 'cost', 'margin'].map((m) => [Number(report.totals[m])]),
      );
    }
    const prefixes = String((await page(`by=prefix&${period}`)).body);
    expect(prefixes).toContain('+5255');
    expect(prefixes).toContain('Precio del canal o por omisión');
  });

  it('downloads the rows as CSV: the header and values of reports margins --csv, negative money as numbers', async () => {
    for (const by of ['account', 'carrier']) {
      const { csv } = await ok('reports', 'margins', '--from', today, '--to', today, '--by', by, '--csv');
      const download = await panelPage(h, session, `/panel/operator/margins/export?by=${by}&${period}`);
      expect(download.status).toBe(200);
      expect(download.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(download.headers['content-disposition']).toBe(
        `attachment; filename="margins-${by}-${today}-${today}.csv"`,
      );
      const body = String(download.body);
      expect(body.startsWith('\ufeff')).toBe(true);
      expect(body.slice(1).trimEnd().split('\r\n')).toEqual(csv.split('\n'));
      expect(csv).toMatch(/,-\d+\.\d\d(\n|$)/);
    }
    const page1 = String((await page(period)).body);
    expect(page1).toContain(`href="/panel/operator/margins/export?by=account&amp;from=${today}&amp;to=${today}"`);
  });

  it('refuses malformed or too long periods with a 400, and shows this month by default', async () => {
    for (const query of [
      'from=2026-13-01&to=2026-12-01',
      'from=2026-02-02&to=2026-02-01',
      'from=2024-01-01&to=2026-01-01',
      `from=${encodeURIComponent('"><script>x</script>')}`,
    ]) {
      const refused = await page(query);
      expect(refused.status).toBe(400);
      expect(String(refused.body)).not.toContain('<script>x');
      expect((await panelPage(h, session, `/panel/operator/margins/export?${query}`)).status).toBe(400);
    }
    const unknown = String((await page(`by=number&${period}`)).body);
    expect(unknown).toMatch(/<option value="account"\s+selected/);
    const plain = String((await page('')).body);
    expect(plain).toContain(`value="${today.slice(0, 8)}01"`);
    expect(plain).toContain(`value="${today}"`);
  });

  it('flags the messages a carrier took with no cost known, on their row, in the totals and above the table', async () => {
    expect(String((await page(period)).body)).not.toContain('data-testid="margins-cost-unknown"');
    await ok('carriers', 'costs', 'remove', '--name', 'simulator', '--prefix', '52');
    await h.ctx.carriers.manager.refreshNow();
    await afterPoll();
    const c = await h.createAccount(10);
    await send(c.apikey, '5512345601,5512345602');
    await eventually(async () => {
      const open = await h.ctx.db.kysely.selectFrom('messages').select('id').where('stage', '<', 2).execute();
      return open.length === 0;
    }, 10_000);
    const body = String((await page(period)).body);
    expect(body).toMatch(/data-testid="margins-cost-unknown"[^>]*>\s*2 mensajes se entregaron a un operador sin costo/);
    const row = new RegExp(`<tr data-key="${c.email}">([\\s\\S]*?)</tr>`).exec(body)![1];
    expect(row).toMatch(/data-testid="cost-unknown"[^>]*>\s*2\s*</);
    const totals = /<tr data-testid="margins-totals">([\s\S]*?)<\/tr>/.exec(body)![1];
    expect(cellsOf(totals)[6]).toBe('2');
  });

  it('is for operators only, and linked from the operator nav', async () => {
    expect(String((await panelPage(h, session, '/panel/operator')).body)).toContain('href="/panel/operator/margins"');
    const user = await withPassword(h, await h.createAccount(1), 'account pass 1');
    const signedIn = (await panelSignin(h, user.email, user.password)).session!;
    expect((await panelPage(h, signedIn, '/panel/operator/margins')).status).toBe(403);
    expect((await panelPage(h, signedIn, '/panel/operator/margins/export')).status).toBe(403);
    expect((await h.request('GET', '/panel/operator/margins/export')).status).not.toBe(200);
  });
});
