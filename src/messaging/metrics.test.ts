import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { sendSms } from '../../test/helpers/webhook-delivery.js';
import { applyDeliveryReports } from './delivery.js';

/** The value of one series in a /metrics text, 0 when it is absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** The pipeline's counters: messages by channel and status, final receipts and their latency per carrier. */
describeEngines('pipeline metrics', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());
  const text = async () => (await h.app.inject({ method: 'GET', url: '/metrics' })).body;

  it('counts hand-offs, refusals and final receipts by channel, and receipts with their latency by carrier', async () => {
    const a = await h.createAccount(10);
    // 5550000006 is reported undelivered (6), 5512345678 delivered, 5559999001 refused at submission.
    await sendSms(h, a.id, ['5550000006', '5512345678', '5512345679', '5559999001']);
    const m = await eventually(async () => {
      const t = await text();
      return sample(t, 'mensajero_carrier_receipts_total{carrier="simulator",status="delivered"}') === 2 &&
        sample(t, 'mensajero_carrier_receipts_total{carrier="simulator",status="undelivered"}') === 1
        ? t
        : null;
    }, 15_000);
    expect(sample(m, 'mensajero_messages_total{channel="sms",status="sent"}')).toBe(3);
    expect(sample(m, 'mensajero_messages_total{channel="sms",status="refused"}')).toBe(1);
    expect(sample(m, 'mensajero_messages_total{channel="sms",status="delivered"}')).toBe(2);
    expect(sample(m, 'mensajero_messages_total{channel="sms",status="undelivered"}')).toBe(1);
    expect(sample(m, 'mensajero_carrier_receipt_latency_seconds_count{carrier="simulator"}')).toBe(3);
    expect(sample(m, 'mensajero_carrier_receipt_latency_seconds_bucket{le="86400",carrier="simulator"}')).toBe(3);
  });

  it('counts a report that arrives twice once', async () => {
    const before = sample(await text(), 'mensajero_carrier_receipts_total{carrier="simulator",status="delivered"}');
    const a = await h.createAccount(10);
    const [ref] = await sendSms(h, a.id, ['5512340001']);
    const row = await eventually(async () => {
      const r = await h.ctx.db.kysely
        .selectFrom('messages')
        .select(['id', 'stage'])
        .where('reference', '=', ref.reference)
        .executeTakeFirstOrThrow();
      return r.stage === 2 ? r : null;
    }, 15_000);
    expect(await applyDeliveryReports(h.ctx, [{ messageId: row.id, code: 0, at: Date.now() }])).toBe(0);
    expect(sample(await text(), 'mensajero_carrier_receipts_total{carrier="simulator",status="delivered"}')).toBe(
      before + 1,
    );
  });
});
