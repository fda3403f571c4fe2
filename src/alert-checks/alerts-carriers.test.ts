import { afterAll, beforeAll, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { runCommands } from '../../test/helpers/cli.js';
import { TestSmsc } from '../../test/helpers/smsc.js';
import { operatorEndpoint, operatorSecret, startSmtp } from '../../test/helpers/alerts.js';
import { carrierCommands } from '../carriers/cli.js';
import { alertCommands } from '../alerts/cli.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeEngines('operator alerts: carriers', (engine) => {
  let h: Harness;
  let op: Awaited<ReturnType<typeof operatorEndpoint>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const secret = operatorSecret();
  const smscs: TestSmsc[] = [];
  let counter = 0;
  beforeAll(async () => {
    op = await operatorEndpoint();
    smtp = await startSmtp();
    h = await startHarness(engine, {
      env: {
        CARRIER_POLL_MS: '100',
        ALERT_CHECK_MS: '100',
        ALERT_CARRIER_DOWN_SECONDS: '1',
        OPERATOR_WEBHOOK_URL: op.url,
        OPERATOR_WEBHOOK_SECRET: secret,
        SMTP_URL: smtp.url,
        ALERT_EMAIL_TO: 'ops@example.com',
      },
    });
  });
  afterAll(async () => {
    await h.close();
    for (const s of smscs) await s.stop();
    await op.stop();
    await smtp.stop();
  });

  const cli = (...args: string[]) => runCommands(h.ctx, [carrierCommands, alertCommands], [...args, '--json']);
  const alertsOf = (carrier: string) => op.alerts().filter((a) => a.alert.carrier === carrier);
  const typesOf = (carrier: string) => alertsOf(carrier).map((a) => a.alert.type);

  /** A connector to `port` (a test SMSC's, or one where nothing listens). */
  async function connector(port: number) {
    const name = `alert${++counter}`;
    const added = await cli(
      ...['carriers', 'add', 'smpp', '--name', name, '--host', '127.0.0.1', '--port', String(port)],
      ...['--system-id', 'acme', '--password', 'secret1'],
    );
    expect(added.error).toBeUndefined();
    return name;
  }
  const smsc = async (port = 0) => {
    const s = await new TestSmsc({ systemId: 'acme', password: 'secret1' }).start(port);
    smscs.push(s);
    return s;
  };
  /** A port nothing listens on: a test SMSC's, stopped. */
  const deadPort = async () => {
    const s = await smsc();
    await s.stop();
    return s.port;
  };

  it('carrier_down once after the connector lost its bind, none while still down, carrier_up once bound again', async () => {
    const s = await smsc();
    const name = await connector(s.port);
    await eventually(async () => h.ctx.carriers.manager.connector(name)?.available, 10_000);
    const lost = Date.now();
    await s.stop();
    await eventually(async () => typesOf(name).includes('carrier_down'), 10_000);
    const down = alertsOf(name)[0];
    expect(down.alert).toEqual({ type: 'carrier_down', carrier: name, since: expect.any(String) });
    expect(down.alert.since).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Counted from when the bind was lost (give or take one check), and raised a second after.
    expect(Math.abs(Date.parse(down.alert.since) - lost)).toBeLessThan(2_500);
    await pause(1_500); // many checks while still down
    expect(typesOf(name)).toEqual(['carrier_down']);

    await smsc(s.port);
    await eventually(async () => typesOf(name).includes('carrier_up'), 15_000);
    await pause(500);
    expect(typesOf(name)).toEqual(['carrier_down', 'carrier_up']);
    expect(alertsOf(name)[1].alert).toEqual({ type: 'carrier_up', carrier: name, since: expect.any(String) });

    // Standard Webhooks: each one verifies with the operator's secret, and not once altered.
    const wh = new Webhook(secret);
    for (const a of alertsOf(name)) {
      expect(a.method).toBe('POST');
      expect(a.headers['content-type']).toBe('application/json');
      expect(wh.verify(a.body, a.headers as Record<string, string>)).toEqual(a.alert);
      expect(() => wh.verify(a.body.replace(name, 'other'), a.headers as Record<string, string>)).toThrow();
    }
    const listed = (await cli('alerts', 'list')).episodes.filter((e: { subject: string }) => e.subject === name);
    expect(listed).toEqual([
      expect.objectContaining({
        type: 'carrier_down',
        state: 'closed',
        since: down.alert.since,
        closed_at: expect.any(String),
      }),
    ]);
    expect(
      listed[0].deliveries.map((d: { alert: string; channel: string }) => `${d.alert} ${d.channel}`).sort(),
    ).toEqual(['carrier_down email', 'carrier_down webhook', 'carrier_up email', 'carrier_up webhook']);
  });

  it('emails each alert through SMTP_URL to ALERT_EMAIL_TO, and never shows the SMTP password', async () => {
    const name = await connector(await deadPort());
    await eventually(async () => smtp.mails.some((m) => m.text.includes(`"carrier": "${name}"`)), 10_000);
    const mail = smtp.mails.find((m) => m.text.includes(`"carrier": "${name}"`))!;
    expect(mail).toMatchObject({ from: 'mensajero@localhost', to: ['ops@example.com'], user: 'alerts' });
    expect(mail.text).toContain(`Subject: Mensajero alert: carrier_down (${name})`);
    const listed = JSON.stringify(await cli('alerts', 'list'));
    expect(listed).not.toContain('p@ss');
    expect(listed).not.toContain(secret);
  });

  it('a connector that never binds is down from when it was added', async () => {
    const port = await deadPort();
    const added = Date.now();
    const name = await connector(port);
    await eventually(async () => typesOf(name).includes('carrier_down'), 10_000);
    expect(Math.abs(Date.parse(alertsOf(name)[0].alert.since) - added)).toBeLessThan(1_000);
  });

  it('a disabled connector raises nothing; a removed one ends its episode without carrier_up', async () => {
    const port = await deadPort();
    const disabled = await connector(port);
    expect((await cli('carriers', 'disable', '--name', disabled)).enabled).toBe(false);
    const removed = await connector(port);
    await eventually(async () => typesOf(removed).includes('carrier_down'), 10_000);
    expect((await cli('carriers', 'remove', '--name', removed)).error).toBeUndefined();
    await eventually(async () => {
      const { episodes } = await cli('alerts', 'list');
      return episodes.some((e: { subject: string; state: string }) => e.subject === removed && e.state === 'closed');
    });
    await pause(1_500);
    expect(typesOf(disabled)).toEqual([]);
    expect(typesOf(removed)).toEqual(['carrier_down']);
  });
});
