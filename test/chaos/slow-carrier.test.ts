import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../helpers/harness.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { writeMessages } from '../../src/messaging/write.js';
import { dispatchMessages } from '../../src/messaging/dispatch.js';
import { chaosScale } from './scale.js';
import { toCredits } from '../../src/accounts/credits.js';

/**
 * A carrier far slower than the lease: pacing and a submit() that waits
 * longer than JOB_LEASE_MS. Before the heartbeat, the job ran again when its
 * lease ran out and handed the same messages over two or three times.
 */
describeEngines('chaos: a carrier slower than the lease', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    // A 1 s lease: short enough for a slow carrier to outlast it many times, long enough that
    // a loaded test machine's pauses (two shared cores) do not look like a dead process.
    h = await startHarness(engine, { env: { JOB_LEASE_MS: '1000', WORKER_CONCURRENCY: '4' } });
  });
  afterAll(() => h.close());

  it('hands no message over twice, whoever competes for it', { timeout: 300_000 }, async () => {
    const total = chaosScale(400, 2000);
    // 400 msg/s: the campaign takes several leases to go out; each submit() waits 1.2 leases.
    const carrier = new RecordingCarrier(['voice'], 400, 100, 1200);
    h.ctx.carriers.use(carrier);
    const a = await h.createAccount(total * 2);
    const recipients = Array.from({ length: total }, (_, i) => ({
      countryCode: '52',
      number: `5255${String(10000000 + i)}`,
    }));
    const res = await h.ctx.db.kysely.transaction().execute((trx) =>
      writeMessages(trx, h.ctx, {
        accountId: a.id,
        channel: 'voice',
        source: 'voice',
        recipients,
        text: 'Hola',
      }),
    );
    h.ctx.worker.nudge();
    // An inline dispatcher competes with the campaign's job for the same messages.
    await dispatchMessages(h.ctx, res.messageIds.slice(0, 100).reverse());
    await eventually(
      async () => {
        const left = await h.ctx.db.kysely
          .selectFrom('messages')
          .select('id')
          .where('campaign_id', '=', res.campaignId)
          .where('stage', '=', 0)
          .execute();
        return left.length === 0;
      },
      240_000,
      100,
    );
    console.info(
      'chaos slow carrier',
      JSON.stringify({
        engine,
        total,
        handedOver: carrier.handOffs.size,
        repeated: carrier.repeated().length,
        submitCalls: carrier.calls,
      }),
    );
    expect(carrier.handOffs.size).toBe(total);
    expect(carrier.repeated()).toEqual([]);
    const balance = await h.post('/credits/consult', {}, a.apikey);
    expect(balance.body.credit).toBe(total * 2 - toCredits(res.creditUnits));
  });
});
