import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { sendSms } from '../../test/helpers/webhook-delivery.js';
import type { CarrierDriver, SubmitOutcome } from './ports.js';
import { applyDeliveryReports } from './delivery.js';
import { dispatchCampaign } from './dispatch.js';
import { writeMessages } from './write.js';

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
    // A send of 4 numbers is transactional: its hand-offs and refusal counted by class.
    expect(sample(m, 'mensajero_messages_by_class_total{class="transactional",status="sent"}')).toBe(3);
    expect(sample(m, 'mensajero_messages_by_class_total{class="transactional",status="refused"}')).toBe(1);
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

/** A voice carrier that never takes a message (a transient error each time). */
class UnreachableDriver implements CarrierDriver {
  readonly name = 'unreachable';
  readonly channels = ['voice'] as const;
  readonly messagesPerSecond = 100_000;
  readonly maxBatch = 50;
  async submit(batch: unknown[]): Promise<SubmitOutcome[]> {
    return batch.map(() => ({ ok: false, permanent: false, error: 'connection refused' }));
  }
}

/** Messages closed without a receipt: an archived account's (refused) and those no carrier took (undelivered). */
describeEngines('pipeline metrics of messages closed unsent', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    h.ctx.carriers.use(new UnreachableDriver());
  });
  afterAll(() => h.close());
  const text = async () => (await h.app.inject({ method: 'GET', url: '/metrics' })).body;
  const submitVoice = async (accountId: number, numbers: string[]) =>
    h.ctx.db.kysely.transaction().execute((trx) =>
      writeMessages(trx, h.ctx, {
        accountId,
        channel: 'voice',
        source: 'voice',
        recipients: numbers.map((n) => ({ countryCode: '52', number: `52${n}` })),
        text: 'Hola',
      }),
    );

  it('counts the messages of an archived account as refused on their channel', async () => {
    const a = await h.createAccount(10);
    const res = await submitVoice(a.id, ['5512345601', '5512345602']);
    await h.ctx.db.kysely.updateTable('accounts').set({ suspended: 1 }).where('id', '=', a.id).execute();
    await dispatchCampaign(h.ctx, res.campaignId);
    expect(sample(await text(), 'mensajero_messages_total{channel="voice",status="refused"}')).toBe(2);
  });

  it('counts the messages no carrier took after the last attempt as undelivered, and nothing as sent', async () => {
    const a = await h.createAccount(10);
    const res = await submitVoice(a.id, ['5512345603', '5512345604', '5512345605']);
    await dispatchCampaign(h.ctx, res.campaignId, { attempt: 20, last: true });
    const m = await text();
    expect(sample(m, 'mensajero_messages_total{channel="voice",status="undelivered"}')).toBe(3);
    expect(sample(m, 'mensajero_messages_total{channel="voice",status="sent"}')).toBe(0);
  });
});
