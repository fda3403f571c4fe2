import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { SMPP_ENV, smppTools } from '../../test/helpers/smpp-suite.js';
import { operatorEndpoint, operatorSecret } from '../../test/helpers/alerts.js';

/** queue_delayed per carrier and class: an OTP code that waits is an incident, a campaign that waits is not. */
describeEngines('operator alerts: carrier lines', (engine) => {
  let h: Harness;
  let op: Awaited<ReturnType<typeof operatorEndpoint>>;
  beforeAll(async () => {
    op = await operatorEndpoint();
    h = await startHarness(engine, {
      env: {
        ...SMPP_ENV,
        ALERT_CHECK_MS: '100',
        ALERT_OTP_DELAY_SECONDS: '1',
        ALERT_BULK_DELAY_SECONDS: '600',
        OPERATOR_WEBHOOK_URL: op.url,
        OPERATOR_WEBHOOK_SECRET: operatorSecret(),
      },
    });
  });
  afterAll(async () => {
    await h.close();
    await op.stop();
  });
  const { carrier, send } = smppTools(() => h);

  it('fires for an OTP code waiting past ALERT_OTP_DELAY_SECONDS, not for bulk within its own', async () => {
    // A carrier that never answers: its one place stays taken, everything else waits in the line.
    const { smsc, name } = await carrier({ answer: () => 'silence' }, ['--window', '1'], { prefix: '525526' });
    const a = await h.createAccount(1_000);
    await send(a.apikey, Array.from({ length: 20 }, (_, i) => `55260000${String(i).padStart(2, '0')}`).join(','));
    await eventually(async () => smsc.received >= 1);
    const otp = await h.post(
      '/v2/otp',
      { phone_number: '5526999999', country_code: '52', channel: 'sms', company: 'Acme' },
      a.apikey,
    );
    expect(otp.status).toBe(201);
    const alert = await eventually(
      async () => op.alerts().find((x) => x.alert.type === 'queue_delayed' && x.alert.carrier === name)?.alert,
      15_000,
      100,
    );
    expect(alert).toMatchObject({ type: 'queue_delayed', carrier: name, class: 'otp' });
    expect(op.alerts().filter((x) => x.alert.class === 'bulk')).toHaveLength(0);
    const status = (await h.ctx.carriers.manager.snapshot()).find((c) => c.name === name)!.stats.line!;
    expect(status.otp.waiting).toBe(1);
    expect(status.bulk.waiting).toBeGreaterThanOrEqual(18);
  }, 60_000);
});
