import { afterAll, beforeAll, expect, it } from 'vitest';
import { submitMessages } from '../../src/messaging/submit.js';
import { describeEngines, eventually, startHarness, type Harness } from '../helpers/harness.js';
import { dashboardMetrics, exposedSeries, loadDashboard, ruleMetrics, unexposed } from '../helpers/ops.js';
import { SMPP_ENV, smppTools } from '../helpers/smpp-suite.js';
import { receiver } from '../helpers/webhook-delivery.js';

/**
 * Every metric the dashboard and the alert rules name has series in /metrics
 * once a service has seen a little traffic: a send through an SMPP carrier
 * that answers with a receipt, its confirmation delivered to a webhook, and a
 * scheduled send waiting in the job queue.
 */
describeEngines('dashboard and alert-rule metrics exposed by /metrics', (engine) => {
  let h: Harness;
  let exposed: Set<string>;
  const hooks: Array<Awaited<ReturnType<typeof receiver>>> = [];
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(async () => {
    for (const hook of hooks) await hook.stop();
    await h.close();
  });
  const { carrier, send, finalMessage } = smppTools(() => h);

  it('produces traffic: a delivered SMS through a carrier, its webhook, a scheduled send', async () => {
    await carrier({ receipt: () => ({ stat: 'DELIVRD', delayMs: 20 }) }, [], { prefix: '525520' });
    const hook = await receiver();
    hooks.push(hook);
    const a = await h.createAccount(100);
    expect((await h.post('/webhook/add', { url: hook.url, status: '1' }, a.apikey)).body.code).toBe('add_webhook_01');
    const [reference] = await send(a.apikey, '5520000001');
    expect(await finalMessage(reference)).toMatchObject({ status: 'delivered' });
    await eventually(async () => hook.deliveries().length > 0, 10_000);
    await h.ctx.db.kysely.transaction().execute((trx) =>
      submitMessages(trx, h.ctx, {
        accountId: a.id,
        channel: 'sms',
        source: 'sms',
        recipients: [{ countryCode: '52', number: '525520000002' }],
        text: 'Mañana',
        scheduledAt: Date.now() + 3_600_000,
      }),
    );
    // The delivery's outcome is recorded (and counted) just after the receiver answered.
    exposed = await eventually(async () => {
      const scrape = await h.app.inject({ method: 'GET', url: '/metrics' });
      expect(scrape.statusCode).toBe(200);
      return scrape.body.includes('mensajero_webhook_attempts_total{result="delivered"}') && exposedSeries(scrape.body);
    });
    expect(exposed).toContain('mensajero_carrier_receipt_latency_seconds_bucket');
  });

  it('exposes every metric a dashboard query or variable names', () => {
    expect(unexposed(dashboardMetrics(loadDashboard()), exposed)).toEqual([]);
  });

  it('exposes every metric an alert rule names', () => {
    const used = ruleMetrics();
    expect(used.size).toBeGreaterThan(0);
    expect(unexposed(used, exposed)).toEqual([]);
  });
});
