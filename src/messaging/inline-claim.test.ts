import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { RecordingCarrier } from '../../test/helpers/recording-carrier.js';
import { dispatchMessages } from './dispatch.js';
import { writeMessages } from './write.js';
import type { InlineClaim } from './types.js';

/**
 * A small immediate send is inserted already claimed by the hand-off that
 * submits it: no other dispatcher takes it while that claim holds, the
 * hand-off submits it without writing a claim, and once the claim ran out
 * (its process died before handing it over) any dispatcher sends it, once.
 */
describeEngines('messages inserted claimed by their hand-off', (engine) => {
  let h: Harness;
  let carrier: RecordingCarrier;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    carrier = new RecordingCarrier(['voice']);
    h.ctx.carriers.use(carrier);
  });
  afterAll(() => h.close());

  const lease = () => h.ctx.config.JOB_LEASE_MS;
  const send = async (claimedBy: InlineClaim, number: string) => {
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
        },
        claimedBy,
      ),
    );
    return r.messageIds[0];
  };
  const row = (id: number) =>
    h.ctx.db.kysely
      .selectFrom('messages')
      .select(['stage', 'claim_token', 'claimed_until'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('is inserted with the claim, left alone by other dispatchers, and handed over by its own without a new claim', async () => {
    const own = { token: randomUUID(), until: Date.now() + lease() };
    const id = await send(own, '5512340001');
    expect(await row(id)).toMatchObject({ stage: 0, claim_token: own.token });
    expect(Number((await row(id)).claimed_until)).toBe(own.until);
    expect(await dispatchMessages(h.ctx, [id])).toEqual([]);
    const outcomes = await dispatchMessages(h.ctx, [id], undefined, own);
    expect(outcomes.map((o) => o.outcome.ok)).toEqual([true]);
    expect(await row(id)).toMatchObject({ stage: 1, claim_token: own.token });
    expect(Number((await row(id)).claimed_until)).toBe(own.until);
    expect(carrier.handOffs.get(id)).toBe(1);
  });

  it('is claimed anew by its own hand-off when less than half of the lease is left', async () => {
    const own = { token: randomUUID(), until: Date.now() + Math.floor(lease() / 4) };
    const id = await send(own, '5512340002');
    const outcomes = await dispatchMessages(h.ctx, [id], undefined, own);
    expect(outcomes.map((o) => o.outcome.ok)).toEqual([true]);
    const after = await row(id);
    expect(after.stage).toBe(1);
    expect(after.claim_token).not.toBe(own.token);
    expect(carrier.handOffs.get(id)).toBe(1);
  });

  it('is handed over once by any dispatcher after its claim ran out', async () => {
    const own = { token: randomUUID(), until: Date.now() - 1 };
    const id = await send(own, '5512340003');
    expect((await dispatchMessages(h.ctx, [id])).map((o) => o.outcome.ok)).toEqual([true]);
    expect(await dispatchMessages(h.ctx, [id], undefined, own)).toEqual([]);
    expect(carrier.handOffs.get(id)).toBe(1);
  });
});
