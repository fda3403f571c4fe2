import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { RecordingCarrier } from '../../test/helpers/recording-carrier.js';
import type { OutboundMessage, SubmitOutcome } from './ports.js';
import { DISPATCH_JOB, dispatchMessages } from './dispatch.js';
import { writeMessages } from './write.js';
import { SWEEP_MAX_ATTEMPTS, sweepUnsent } from './sweep.js';
import type { InlineClaim } from './types.js';

/** A carrier that answers every message with a transient error while `down`. */
class FlakyCarrier extends RecordingCarrier {
  down = false;
  override async submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]> {
    const outcomes = await super.submit(batch);
    return this.down ? batch.map(() => ({ ok: false, permanent: false, error: 'carrier down' })) : outcomes;
  }
}

/**
 * A small immediate send inserted claimed by its hand-off queues no dispatch
 * job: the unsent sweep hands it over once its claim runs out (its process
 * died), retries it after the back-off a transient failure holds it for, and
 * closes it once expired or after every retry failed.
 */
describeEngines('the unsent sweep', (engine) => {
  let h: Harness;
  let carrier: FlakyCarrier;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    carrier = new FlakyCarrier(['voice']);
    h.ctx.carriers.use(carrier);
  });
  afterAll(() => h.close());

  const send = async (claimedBy: InlineClaim, number: string, validUntil?: number) => {
    const a = await h.createAccount(10);
    const r = await h.ctx.db.kysely.transaction().execute((trx) =>
      writeMessages(
        trx,
        h.ctx,
        {
          accountId: a.id,
          channel: 'voice',
          source: 'sms',
          text: 'Hola',
          recipients: [{ countryCode: '52', number: `52${number}` }],
          validUntil,
        },
        claimedBy,
      ),
    );
    return { id: r.messageIds[0], campaignId: r.campaignId };
  };
  const row = (id: number) =>
    h.ctx.db.kysely
      .selectFrom('messages')
      .select(['stage', 'dlr_code', 'claim_token', 'claimed_until'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const lapse = (id: number) =>
    h.ctx.db.kysely.updateTable('messages').set({ claimed_until: 1 }).where('id', '=', id).execute();

  it('queues no dispatch job for a send inserted claimed by its hand-off', async () => {
    const { campaignId } = await send({ token: randomUUID(), until: Date.now() + 60_000 }, '5512350001');
    const jobs = await h.ctx.db.kysely.selectFrom('jobs').select('payload').where('kind', '=', DISPATCH_JOB).execute();
    expect(jobs.filter((j) => JSON.parse(j.payload).campaignId === campaignId)).toEqual([]);
  });

  it('leaves a live claim alone and hands a lapsed one over once', async () => {
    const live = await send({ token: randomUUID(), until: Date.now() + 60_000 }, '5512350002');
    const dead = await send({ token: randomUUID(), until: Date.now() - 1 }, '5512350003');
    await sweepUnsent(h.ctx);
    await sweepUnsent(h.ctx);
    expect(carrier.handOffs.get(live.id)).toBeUndefined();
    expect((await row(live.id)).stage).toBe(0);
    expect(carrier.handOffs.get(dead.id)).toBe(1);
    expect((await row(dead.id)).stage).toBe(1);
  });

  it('holds a message a transient failure released for its back-off, then retries it', async () => {
    const own = { token: randomUUID(), until: Date.now() + 60_000 };
    const { id } = await send(own, '5512350004');
    carrier.down = true;
    try {
      await dispatchMessages(h.ctx, [id], undefined, own, h.ctx.config.DISPATCH_RETRY_MS);
    } finally {
      carrier.down = false;
    }
    const held = await row(id);
    expect(held).toMatchObject({ stage: 0, claim_token: null });
    expect(Number(held.claimed_until)).toBeGreaterThan(Date.now());
    await sweepUnsent(h.ctx);
    expect(carrier.handOffs.get(id)).toBe(1);
    await lapse(id);
    await sweepUnsent(h.ctx);
    expect(carrier.handOffs.get(id)).toBe(2);
    expect((await row(id)).stage).toBe(1);
  });

  it('closes with status 8 a message whose every retry failed', async () => {
    const { id } = await send({ token: randomUUID(), until: Date.now() - 1 }, '5512350005');
    carrier.down = true;
    try {
      for (let n = 0; n < SWEEP_MAX_ATTEMPTS; n++) {
        await sweepUnsent(h.ctx);
        await lapse(id);
      }
    } finally {
      carrier.down = false;
    }
    await sweepUnsent(h.ctx);
    expect(carrier.handOffs.get(id)).toBe(SWEEP_MAX_ATTEMPTS);
    expect(await row(id)).toMatchObject({ stage: 2, dlr_code: 8 });
  });

  it('closes with status 3 a message whose validity ended before the sweep found it', async () => {
    const { id } = await send({ token: randomUUID(), until: Date.now() - 1 }, '5512350006', Date.now() - 1);
    await sweepUnsent(h.ctx);
    expect(carrier.handOffs.get(id)).toBeUndefined();
    expect(await row(id)).toMatchObject({ stage: 2, dlr_code: 3 });
  });
});
