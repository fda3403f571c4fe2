import { afterAll, beforeAll, expect, it } from 'vitest';
import { writeMessages } from '../../src/messaging/write.js';
import { describeEngines, eventually, startHarness, type Harness } from '../helpers/harness.js';
import { dashboardMetrics, exposedSeries, loadDashboard, ruleMetrics, unexposed } from '../helpers/ops.js';
import { SMPP_ENV, smppTools } from '../helpers/smpp-suite.js';
import { receiver } from '../helpers/webhook-delivery.js';
import { ask, bindClient, smppCustomer } from '../helpers/smpp-server.js';
import { gsmSeptets } from '../../src/smpp-protocol/encoding.js';
import type { SmppSession } from '../../src/smpp-protocol/pdu.js';

/**
 * Every metric the dashboard and the alert rules name has series in /metrics
 * once a service has seen a little traffic: a send through an SMPP carrier
 * that answers with a receipt, its confirmation delivered to a webhook, a
 * scheduled send waiting in the job queue, and a customer bound to the SMPP
 * server that submits and takes its receipt.
 */
describeEngines('dashboard and alert-rule metrics exposed by /metrics', (engine) => {
  let h: Harness;
  let exposed: Set<string>;
  const hooks: Array<Awaited<ReturnType<typeof receiver>>> = [];
  const customers: SmppSession[] = [];
  beforeAll(async () => {
    h = await startHarness(engine, {
      env: { ...SMPP_ENV, SMPP_SERVER_PORT: '0', SMPP_SERVER_HOST: '127.0.0.1' },
      smpp: { renewMs: 100, deliverMs: 50 },
    });
  });
  afterAll(async () => {
    for (const hook of hooks) await hook.stop();
    for (const session of customers) session.close();
    await h.close();
  });

  /** A customer bound to the SMPP server submits one message asking for its receipt, and acknowledges what it gets. */
  async function smppCustomerTraffic() {
    const c = await smppCustomer(h, 100);
    const { session, status } = await bindClient(h.smpp!.port!, c.systemId, c.password, 'transceiver', (s) =>
      s.on('deliver_sm', (pdu) => s.send(pdu.response())),
    );
    customers.push(session);
    expect(status).toBe(0);
    const sent = await ask(session, 'submit_sm', {
      destination_addr: '525520000003',
      dest_addr_ton: 1,
      registered_delivery: 1,
      short_message: Buffer.from(gsmSeptets('Por SMPP')),
    });
    expect(sent.command_status).toBe(0);
  }
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
      writeMessages(trx, h.ctx, {
        accountId: a.id,
        channel: 'sms',
        source: 'sms',
        recipients: [{ countryCode: '52', number: '525520000002' }],
        text: 'Mañana',
        scheduledAt: Date.now() + 3_600_000,
      }),
    );
    await smppCustomerTraffic();
    // The delivery's outcome is recorded (and counted) just after the receiver answered.
    exposed = await eventually(async () => {
      const scrape = await h.app.inject({ method: 'GET', url: '/metrics' });
      expect(scrape.statusCode).toBe(200);
      // The open-binds gauge is set at the end of a renewal round (every second), not at the bind.
      const seen = [
        'mensajero_webhook_attempts_total{result="delivered"}',
        'mensajero_smpp_server_delivered_total{',
        'mensajero_smpp_server_bound{',
      ];
      return seen.every((series) => scrape.body.includes(series)) && exposedSeries(scrape.body);
    }, 15_000);
    expect(exposed).toContain('mensajero_carrier_receipt_latency_seconds_bucket');
    expect(exposed).toContain('mensajero_smpp_server_bound');
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
