import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { simulatedReply } from '../../test/helpers/simulated-reply.js';
import { toUnits } from '../accounts/credits.js';
import { simulatedRefusal, simulatedStatus } from '../carriers/simulator/driver.js';
import { applyDeliveryReports } from './delivery.js';
import { dispatchCampaign, dispatchMessages } from './dispatch.js';
import { RetryLater } from '../jobs/worker.js';
import type { CarrierDriver, OutboundMessage, SubmitOutcome } from './ports.js';
import { writeMessages } from './write.js';
import type { SendRequest } from './types.js';

describe('simulated carrier rules', () => {
  it.each([
    ['525550000006', 6],
    ['525550000000', 0],
    ['525550000012', 12],
    ['525550000013', 0],
    ['525512345678', 0],
  ])('%s reports %i', (n, code) => expect(simulatedStatus(n)).toBe(code));
  it('refuses numbers starting 5559999', () => {
    expect(simulatedRefusal('525559999001')).toBe(true);
    expect(simulatedRefusal('525512345678')).toBe(false);
  });
});

describeEngines('messaging pipeline', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const request = (accountId: number, numbers: string[], extra: Partial<SendRequest> = {}): SendRequest => ({
    accountId,
    channel: 'sms',
    source: 'sms',
    recipients: numbers.map((n) => ({ countryCode: '52', number: `52${n}` })),
    text: 'Hola',
    ...extra,
  });
  const submit = (req: SendRequest) => h.ctx.db.kysely.transaction().execute((trx) => writeMessages(trx, h.ctx, req));
  const credit = async (key: string) => (await h.post('/credits/consult', {}, key)).body.credit;
  const message = (reference: string) =>
    h.ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();

  it('charges, dispatches and records each delivery status with its confirmation event', async () => {
    const a = await h.createAccount(10);
    const res = await submit(request(a.id, ['5550000006', '5512345678'], { extraParams: '{"order":"7"}' }));
    expect(res.creditUnits).toBe(toUnits(2));
    expect(await credit(a.apikey)).toBe(8);
    expect(new Set(res.references.map((r) => r.reference)).size).toBe(2);
    h.ctx.worker.nudge();
    const failed = await eventually(async () => {
      const m = await message(res.references[0].reference);
      return m.stage === 2 ? m : null;
    }, 15_000);
    expect(failed).toMatchObject({ dlr_code: 6, status: 'undelivered', number: '525550000006' });
    const delivered = await eventually(async () => {
      const m = await message(res.references[1].reference);
      return m.stage === 2 ? m : null;
    }, 15_000);
    expect(delivered).toMatchObject({ dlr_code: 0, status: 'delivered' });
    const events = await h.ctx.db.kysely
      .selectFrom('events')
      .selectAll()
      .where('account_id', '=', a.id)
      .orderBy('id')
      .execute();
    expect(events).toHaveLength(2);
    const payload = JSON.parse(events.find((e) => e.reference === res.references[0].reference)!.payload);
    expect(payload).toMatchObject({
      type: 'confirmation',
      reference: res.references[0].reference,
      status: '6',
      number: '525550000006',
      extra_params: '{"order":"7"}',
    });
    expect(payload.date).toMatch(/^\d{14}$/);
  });

  it('changes nothing twice when a report repeats or arrives late, and never re-sends', async () => {
    const a = await h.createAccount(5);
    // Scheduled an hour ahead so the worker leaves it alone: this test dispatches it itself.
    const res = await submit(request(a.id, ['5511111111'], { scheduledAt: Date.now() + 3_600_000 }));
    const sent = await dispatchMessages(h.ctx, res.messageIds);
    expect(sent).toHaveLength(1);
    expect(await dispatchMessages(h.ctx, res.messageIds)).toHaveLength(0);
    // The simulator's own report (status 0) lands first; repeats and later reports change nothing.
    await eventually(async () => (await message(res.references[0].reference)).stage === 2, 15_000);
    const at = Date.now();
    expect(await applyDeliveryReports(h.ctx, [{ messageId: res.messageIds[0], code: 0, at }])).toBe(0);
    expect(await applyDeliveryReports(h.ctx, [{ messageId: res.messageIds[0], code: 5, at }])).toBe(0);
    expect((await message(res.references[0].reference)).dlr_code).toBe(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(
      await h.ctx.db.kysely.selectFrom('events').select('id').where('account_id', '=', a.id).execute(),
    ).toHaveLength(1);
  });

  it('applies one batch of mixed reports once per message: first report wins, codes outside 0-12 become 5, sandbox untouched', async () => {
    const a = await h.createAccount(10);
    // Scheduled an hour ahead so the worker leaves them alone: the reports below overtake the hand-off.
    const res = await submit(
      request(a.id, ['5511111111', '5522222222', '5533333333'], { scheduledAt: Date.now() + 3_600_000 }),
    );
    const sandbox = await submit(request(a.id, ['5544444444'], { sandbox: true }));
    const [m1, m2, m3] = res.messageIds;
    const at = Date.now() - 5_000;
    const applied = await applyDeliveryReports(h.ctx, [
      { messageId: m1, code: 6, at },
      { messageId: m2, code: 0, at: at + 1 },
      { messageId: m1, code: 0, at: at + 2 },
      { messageId: m3, code: 99, at },
      { messageId: sandbox.messageIds[0], code: 0, at },
    ]);
    expect(applied).toBe(3);
    const rows = await Promise.all(res.references.map((r) => message(r.reference)));
    expect(rows.map((m) => [m.stage, m.status, m.dlr_code])).toEqual([
      [2, 'undelivered', 6],
      [2, 'delivered', 0],
      [2, 'undelivered', 5],
    ]);
    expect(rows[0]).toMatchObject({ dlr_at: at, sent_at: at });
    expect(rows[1]).toMatchObject({ dlr_at: at + 1, sent_at: at + 1 });
    expect(await message(sandbox.references[0].reference)).toMatchObject({ status: 'sandbox', dlr_code: null });
    const events = await h.ctx.db.kysely
      .selectFrom('events')
      .select(['reference', 'payload'])
      .where('account_id', '=', a.id)
      .execute();
    expect(events.map((e) => [e.reference, JSON.parse(e.payload).status]).sort()).toEqual(
      [
        [res.references[0].reference, '6'],
        [res.references[1].reference, '0'],
        [res.references[2].reference, '5'],
      ].sort(),
    );
  });

  it('refunds a message the carrier refuses and reports it as rejected', async () => {
    const a = await h.createAccount(3);
    // Inserted claimed, as a send this process hands over itself: no dispatch job races this one.
    const claim = h.ctx.sharedDispatch.claim();
    const res = await h.ctx.db.kysely
      .transaction()
      .execute((trx) => writeMessages(trx, h.ctx, request(a.id, ['5559999001']), claim));
    expect(await credit(a.apikey)).toBe(2);
    const [outcome] = await dispatchMessages(h.ctx, res.messageIds, undefined, claim);
    expect(outcome.outcome.ok).toBe(false);
    expect(await message(res.references[0].reference)).toMatchObject({ status: 'refused', dlr_code: 4, stage: 2 });
    expect(await credit(a.apikey)).toBe(3);
  });

  it('refuses a request the balance does not cover and writes nothing', async () => {
    const a = await h.createAccount(1);
    await expect(submit(request(a.id, ['5511111111', '5522222222']))).rejects.toMatchObject({
      code: 'insufficient_credits',
    });
    expect(await credit(a.apikey)).toBe(1);
    expect(
      await h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', a.id).execute(),
    ).toHaveLength(0);
    expect(
      await h.ctx.db.kysely.selectFrom('campaigns').select('id').where('account_id', '=', a.id).execute(),
    ).toHaveLength(0);
  });

  it('accepts exactly what the credits cover under 20 parallel requests', async () => {
    const a = await h.createAccount(10);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => submit(request(a.id, [`55${String(10000000 + i)}`]))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    expect(await credit(a.apikey)).toBe(0);
  });

  it('records sandbox messages as final, uncharged and undispatched', async () => {
    const a = await h.createAccount(0);
    const res = await submit(request(a.id, ['5511111111'], { sandbox: true }));
    expect(res.creditUnits).toBe(0);
    expect(await message(res.references[0].reference)).toMatchObject({ status: 'sandbox', stage: 2, sandbox: 1 });
    expect(
      await h.ctx.db.kysely
        .selectFrom('jobs')
        .select('id')
        .where('payload', '=', JSON.stringify({ campaignId: res.campaignId }))
        .execute(),
    ).toHaveLength(0);
  });

  it('holds a scheduled message until its time', async () => {
    const a = await h.createAccount(1);
    const at = Date.now() + 2500;
    const res = await submit(request(a.id, ['5511111111'], { scheduledAt: at }));
    h.ctx.worker.nudge();
    await new Promise((r) => setTimeout(r, 300));
    expect((await message(res.references[0].reference)).status).toBe('scheduled');
    const sent = await eventually(async () => {
      const m = await message(res.references[0].reference);
      return m.sent_at ? m : null;
    }, 15_000);
    expect(sent.sent_at!).toBeGreaterThanOrEqual(at);
  });

  it('turns a simulated reply into a response event with the original reference', async () => {
    const a = await h.createAccount(2);
    const res = await submit(request(a.id, ['5512345678']));
    const r = await simulatedReply(h, a.apikey, '5512345678', 'SI');
    expect(r.status).toBe(200);
    expect(r.body.reference).toBe(res.references[0].reference);
    const event = await h.ctx.db.kysely
      .selectFrom('events')
      .selectAll()
      .where('account_id', '=', a.id)
      .where('type', '=', 'response')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(event.payload)).toMatchObject({
      type: 'response',
      reference: res.references[0].reference,
      number: '525512345678',
      message: 'Hola',
      response: 'SI',
    });
    expect((await h.post('/simulator/replies', { number: '5599999999', response: 'x' }, a.apikey)).status).toBe(404);
    expect((await h.post('/simulator/replies', { number: 'abc' }, a.apikey)).body.code).toBe('simulator_02');
  });
});

/** A carrier that counts how often it was handed each message, slowly enough for dispatchers to overlap. */
class CountingDriver implements CarrierDriver {
  readonly name = 'counting';
  readonly channels = ['voice'] as const;
  readonly messagesPerSecond = 100_000;
  readonly maxBatch = 50;
  readonly seen = new Map<number, number>();
  async submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]> {
    await new Promise((r) => setTimeout(r, 20));
    for (const m of batch) this.seen.set(m.id, (this.seen.get(m.id) ?? 0) + 1);
    return batch.map(() => ({ ok: true }));
  }
}

describeEngines('dispatch claims', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  it('never hands a message to the carrier twice when dispatchers overlap', async () => {
    const driver = new CountingDriver();
    h.ctx.carriers.use(driver);
    const a = await h.createAccount(1000);
    const recipients = Array.from({ length: 120 }, (_, i) => ({
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
    // An inline sender and the campaign's dispatch job, three times over, at once.
    await Promise.all([
      dispatchMessages(h.ctx, res.messageIds),
      dispatchCampaign(h.ctx, res.campaignId).catch((e) => e),
      dispatchMessages(h.ctx, [...res.messageIds].reverse()),
      dispatchCampaign(h.ctx, res.campaignId).catch((e) => e),
    ]);
    expect(driver.seen.size).toBe(120);
    expect([...driver.seen.values()].every((n) => n === 1)).toBe(true);
    const sent = await h.ctx.db.kysely
      .selectFrom('messages')
      .select('id')
      .where('campaign_id', '=', res.campaignId)
      .where('stage', '=', 1)
      .execute();
    expect(sent).toHaveLength(120);
  });

  it('lets the dispatch job retry a message whose claim was left by a dead dispatcher', async () => {
    const driver = new CountingDriver();
    h.ctx.carriers.use(driver);
    const a = await h.createAccount(10);
    const res = await h.ctx.db.kysely.transaction().execute((trx) =>
      writeMessages(trx, h.ctx, {
        accountId: a.id,
        channel: 'voice',
        source: 'voice',
        recipients: [{ countryCode: '52', number: '525512345678' }],
        text: 'Hola',
      }),
    );
    // A dispatcher claimed it and died: until the claim expires the job leaves it alone and asks to run again.
    await h.ctx.db.kysely
      .updateTable('messages')
      .set({ claimed_until: Date.now() + 60_000 })
      .where('id', '=', res.messageIds[0])
      .execute();
    await expect(dispatchCampaign(h.ctx, res.campaignId)).rejects.toBeInstanceOf(RetryLater);
    expect(driver.seen.size).toBe(0);
    await h.ctx.db.kysely
      .updateTable('messages')
      .set({ claimed_until: Date.now() - 1 })
      .where('id', '=', res.messageIds[0])
      .execute();
    await dispatchCampaign(h.ctx, res.campaignId);
    expect(driver.seen.get(res.messageIds[0])).toBe(1);
  });
});
