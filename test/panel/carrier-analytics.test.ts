import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../helpers/harness.js';
import { createOperator, withPassword } from '../helpers/panel.js';
import { panelPage, panelSignin } from '../helpers/panel-http.js';

describeEngines('operator panel: carrier quality and message trace', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
    await createOperator(h, 'ops@example.com', 'operator pass 1');
  });
  afterAll(() => h.close());

  it('shows per-carrier figures of the period and which carrier is demoted, to operators only', async () => {
    const a = await h.createAccount(10);
    const sent = await h.post('/sms/send', { numbers: '5512345671,5512345672', message: 'Hola' }, a.apikey);
    expect(sent.body.code).toBe('sms_11');
    await eventually(async () => {
      const open = await h.ctx.db.kysely.selectFrom('messages').select('id').where('stage', '<', 2).execute();
      return open.length === 0;
    });
    await h.ctx.db.kysely
      .insertInto('carrier_quality')
      .values({ carrier: 'simulator', min_delivery_rate: 8000, demoted_at: Date.now(), changed_at: Date.now() })
      .execute();
    const { session } = await panelSignin(h, 'ops@example.com', 'operator pass 1');
    const page = await panelPage(h, session!, '/panel/operator/carriers?since=24h');
    expect(page.status).toBe(200);
    const row = /<tr data-carrier="simulator">([\s\S]*?)<\/tr>/.exec(String(page.body))![1];
    const cells = [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1].replace(/\s+/g, ' ').trim());
    expect(cells.slice(1, 6)).toEqual(['2', '2', '0', '0', '100.0 %']);
    expect(row).toContain('data-demoted="true"');
    expect(String(page.body)).toMatch(/<option value="24h"\s+selected/);
    // The charts' data: messages handed to each carrier per hour, and their delivery rate.
    const chartData = (attribute: string) =>
      JSON.parse(
        new RegExp(`${attribute}="([^"]+)"`)
          .exec(String(page.body))![1]
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'")
          .replace(/&amp;/g, '&'),
      );
    const volume = chartData('data-chart');
    expect(volume.series.simulator.reduce((a: number, b: number) => a + b, 0)).toBe(2);
    expect(volume.days.length).toBe(volume.series.simulator.length);
    const rate = chartData('data-line-chart');
    expect(rate.series.simulator.filter((r: number | null) => r !== null)).toEqual([100]);

    // The message trace page finds the same messages as `messages trace`.
    const ref = sent.body.references[0].reference as string;
    const traced = String((await panelPage(h, session!, `/panel/operator/trace?by=reference&value=${ref}`)).body);
    const article = /<article data-reference="([^"]+)">([\s\S]*?)<\/article>/.exec(traced)!;
    expect(article[1]).toBe(ref);
    expect(article[2]).toContain('routed to simulator: priority');
    const byNumber = String((await panelPage(h, session!, '/panel/operator/trace?by=number&value=525512345672')).body);
    expect(byNumber.match(/<article /g)).toHaveLength(1);
    const hostile = String(
      (await panelPage(h, session!, `/panel/operator/trace?value=${encodeURIComponent('"><script>x</script>')}`)).body,
    );
    expect(hostile).not.toContain('<script>x');
    expect(hostile).not.toContain('<article');

    const user = await withPassword(h, await h.createAccount(1), 'account pass 1');
    const signedIn = await panelSignin(h, user.email, user.password);
    expect((await panelPage(h, signedIn.session!, '/panel/operator/carriers')).status).toBe(403);
    expect((await panelPage(h, signedIn.session!, `/panel/operator/trace?value=${ref}`)).status).toBe(403);
  });
});
