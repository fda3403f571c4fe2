import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { applyDeliveryReports } from '../messaging/delivery.js';
import { formatLocal } from '../lib/time.js';
import { SWEEP_MAX_ATTEMPTS } from '../messaging/sweep.js';
import { Pacer } from './pacer.js';
import { type CarrierDriver, type OutboundMessage, type SubmitOutcome } from '../messaging/ports.js';

describe('Pacer', () => {
  afterEach(() => vi.useRealTimers());

  it('holds a driver to its messages per second', async () => {
    vi.useFakeTimers({ now: 0 });
    const pacer = new Pacer(10);
    await pacer.take(10); // the first second's budget: no wait
    let done = false;
    const second = pacer.take(5).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await second;
    expect(done).toBe(true);
  });
});

/** A carrier that fails the first `failures` submissions with a transient error, then accepts. */
class FlakyDriver implements CarrierDriver {
  readonly name = 'flaky';
  readonly channels = ['rcs'] as const;
  readonly messagesPerSecond = 1000;
  readonly maxBatch = 100;
  calls = 0;
  constructor(private failures: number) {}
  async submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]> {
    this.calls++;
    if (this.failures-- > 0) return batch.map(() => ({ ok: false, permanent: false, error: 'carrier busy' }));
    return batch.map((m) => ({ ok: true, carrierId: `c-${m.id}` }));
  }
}

describeEngines('carrier drivers', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { DISPATCH_RETRY_MS: '50' } });
  });
  afterAll(() => h.close());

  it('retries a transient carrier error until the carrier takes the message', async () => {
    const driver = new FlakyDriver(2);
    h.ctx.carriers.use(driver);
    const a = await h.createAccount(10);
    await h.ctx.db.kysely
      .insertInto('senders')
      .values({ account_id: a.id, name: 'RCS', rcs: 1, created_at: Date.now() })
      .execute();
    const r = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: 'Hola', channel: 2, sender: 'RCS' },
      a.apikey,
    );
    expect(r.body.code).toBe('sms_11');
    const m = await eventually(async () => {
      const row = await h.ctx.db.kysely
        .selectFrom('messages')
        .selectAll()
        .where('reference', '=', r.body.references[0].reference)
        .executeTakeFirstOrThrow();
      return row.stage === 1 ? row : null;
    }, 15_000);
    expect(m).toMatchObject({ status: 'sent', carrier: 'flaky', carrier_id: `c-${m.id}` });
    expect(driver.calls).toBe(3);
    // The message was charged once, whatever the retries.
    expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(8.5);
  });

  it('closes messages no carrier took after the last attempt with status 8, refunded', async () => {
    const driver = new FlakyDriver(Number.MAX_SAFE_INTEGER);
    h.ctx.carriers.use(driver);
    const a = await h.createAccount(10);
    await h.ctx.db.kysely
      .insertInto('senders')
      .values({ account_id: a.id, name: 'RCS', rcs: 1, created_at: Date.now() })
      .execute();
    const r = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: 'Hola', channel: 2, sender: 'RCS', showCampaignId: true },
      a.apikey,
    );
    expect(r.body.credit).toBe(1.5);
    // A single send has no dispatch job: the unsent sweep retries it. To end the test quickly, the message starts
    // with all but two of its failed attempts recorded, and each back-off is cut short (a held claim lapses at once).
    const id = (
      await h.ctx.db.kysely
        .selectFrom('messages')
        .select('id')
        .where('reference', '=', r.body.references[0].reference)
        .executeTakeFirstOrThrow()
    ).id;
    await h.ctx.db.kysely
      .insertInto('message_attempts')
      .values(
        Array.from({ length: SWEEP_MAX_ATTEMPTS - 2 }, () => ({
          message_id: id,
          carrier: 'flaky',
          at: Date.now(),
          code: null,
          error: 'earlier attempt',
        })),
      )
      .execute();
    const m = await eventually(async () => {
      await h.ctx.db.kysely
        .updateTable('messages')
        .set({ claimed_until: 1 })
        .where('id', '=', id)
        .where('stage', '=', 0)
        .where('claim_token', 'is', null)
        .where('claimed_until', 'is not', null)
        .execute();
      const row = await h.ctx.db.kysely
        .selectFrom('messages')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return row.stage === 2 ? row : null;
    }, 15_000);
    expect(m).toMatchObject({ status: 'undelivered', dlr_code: 8 });
    expect(driver.calls).toBeGreaterThanOrEqual(2);
    expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(10);
    const event = await h.ctx.db.kysely
      .selectFrom('events')
      .selectAll()
      .where('reference', '=', m.reference)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(event.payload)).toMatchObject({ type: 'confirmation', status: '8' });
  });

  it('records a status outside 0–12 as 5 (unknown), and only the first report of a message', async () => {
    const a = await h.createAccount(10);
    // Scheduled an hour ahead: no carrier report races the ones this test applies.
    const r = await h.post(
      '/sms/send',
      { numbers: '5512345678', message: 'Hola', date: formatLocal(Date.now() + 3_600_000) },
      a.apikey,
    );
    const id = (
      await h.ctx.db.kysely
        .selectFrom('messages')
        .select('id')
        .where('reference', '=', r.body.references[0].reference)
        .executeTakeFirstOrThrow()
    ).id;
    const at = Date.now();
    const results = await Promise.all([
      applyDeliveryReports(h.ctx, [{ messageId: id, code: 99, at }]),
      applyDeliveryReports(h.ctx, [{ messageId: id, code: 0, at }]),
    ]);
    expect(results.reduce((x, y) => x + y, 0)).toBe(1);
    const row = await h.ctx.db.kysely
      .selectFrom('messages')
      .select('dlr_code')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.dlr_code).toBe(results[0] === 1 ? 5 : 0);
    const events = await h.ctx.db.kysely
      .selectFrom('events')
      .select('id')
      .where('reference', '=', r.body.references[0].reference)
      .execute();
    expect(events).toHaveLength(1);
  });
});
