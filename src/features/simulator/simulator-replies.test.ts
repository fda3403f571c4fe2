import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import type { OutboundMessage } from '../../messaging/ports.js';
import { setOptoutSettings } from '../optouts/service.js';

/** A real carrier's driver put in front of SMS (it stays there): what it was handed. */
function realCarrierInFront(h: Harness): OutboundMessage[] {
  const real: OutboundMessage[] = [];
  h.ctx.carriers.use({
    name: 'real-carrier',
    channels: ['sms'],
    messagesPerSecond: 1_000_000,
    maxBatch: 1000,
    async submit(batch) {
      real.push(...batch);
      return batch.map(() => ({ ok: true as const }));
    },
  });
  return real;
}

/**
 * POST /simulator/replies answers only messages the simulator carried, and an
 * opt-out's confirmation text goes to a number at most once a day, however
 * often it opts out and back in: simulated replies never make free traffic
 * through a real carrier.
 */
describeEngines('simulated replies', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const send = (key: string, number: string) => h.post('/sms/send', { numbers: number, message: 'Promo' }, key);
  const reply = (key: string, number: string, response: string) =>
    h.post('/simulator/replies', { number, response }, key);
  const carried = (reference: string) =>
    eventually(async () => {
      const m = await h.ctx.db.kysely
        .selectFrom('messages')
        .select(['carrier', 'stage'])
        .where('reference', '=', reference)
        .executeTakeFirstOrThrow();
      return m.carrier ? m : null;
    });
  const confirmations = (number: string) =>
    h.ctx.db.kysely
      .selectFrom('messages')
      .innerJoin('campaigns', 'campaigns.id', 'messages.campaign_id')
      .select(['messages.price_units', 'messages.carrier'])
      .where('messages.number', '=', number)
      .where('campaigns.name', '=', 'Opt-out confirmation')
      .execute();

  it('twenty STOP/ALTA replies send the confirmation once, free, and charge nothing', async () => {
    const a = await h.createAccount(1);
    await setOptoutSettings(h.ctx.db.kysely, a.id, { confirmation: 'Ya no recibirás mensajes. ALTA para volver.' });
    const r = await send(a.apikey, '5512360002');
    expect(await carried(r.body.references[0].reference)).toMatchObject({ carrier: 'simulator' });
    for (let i = 0; i < 20; i++)
      expect((await reply(a.apikey, '5512360002', i % 2 === 0 ? 'STOP' : 'ALTA')).status).toBe(200);
    const sent = await confirmations('525512360002');
    expect(sent).toHaveLength(1);
    expect(Number(sent[0].price_units)).toBe(0);
    expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(0);
    const total = await h.ctx.db.kysely
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('number', '=', '525512360002')
      .executeTakeFirstOrThrow();
    expect(Number(total.n)).toBe(2);
  });

  // Last: the driver put in front of SMS stays there.
  it('a message a real carrier took gets no simulated reply (404), and so no keyword and no confirmation', async () => {
    const a = await h.createAccount(5);
    await setOptoutSettings(h.ctx.db.kysely, a.id, { confirmation: 'Ya no recibirás mensajes.' });
    const real = realCarrierInFront(h);
    const r = await send(a.apikey, '5512360001');
    expect(await carried(r.body.references[0].reference)).toMatchObject({ carrier: 'real-carrier' });
    for (const text of ['STOP', 'ALTA', 'STOP']) {
      const answer = await reply(a.apikey, '5512360001', text);
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe('simulator_04');
    }
    expect(real).toHaveLength(1);
    expect(await confirmations('525512360001')).toEqual([]);
  });
});

/**
 * Right after a send its message may still wait for its hand-off: a reply to
 * it is accepted when every connector its route may try is the simulator,
 * never when a real carrier may take it. (No worker here: messages wait.)
 */
describeEngines('simulated replies before the hand-off', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    await eventually(async () => h.ctx.carriers.manager.routes.length > 0);
  });
  afterAll(() => h.close());
  const stored = (reference: string) =>
    h.ctx.db.kysely
      .selectFrom('messages')
      .select(['id', 'stage', 'carrier'])
      .where('reference', '=', reference)
      .executeTakeFirstOrThrow();

  it('answers the message still going to the simulator, with its reference, and applies its keyword', async () => {
    const a = await h.createAccount(5);
    const sent = await h.post('/sms/send', { numbers: '5512370001', message: 'Promo' }, a.apikey);
    const reference = sent.body.references[0].reference;
    expect(await stored(reference)).toMatchObject({ stage: 0, carrier: null });
    const answer = await h.post('/simulator/replies', { number: '5512370001', response: 'STOP' }, a.apikey);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ code: 'simulator_01', reference });
    const replies = await h.ctx.db.kysely
      .selectFrom('replies')
      .select('message_id')
      .where('account_id', '=', a.id)
      .execute();
    expect(replies.map((r) => Number(r.message_id))).toEqual([Number((await stored(reference)).id)]);
    const list = await h.get('/optouts', a.apikey);
    expect(list.body.optouts.map((o: { number: string }) => o.number)).toEqual(['525512370001']);
  });

  it('a message a real carrier may take (its route, failover included) gets 404 while it waits', async () => {
    const a = await h.createAccount(5);
    // A route of the account: the simulator first, a real connector to fail over to.
    await h.ctx.db.kysely
      .insertInto('carrier_routes')
      .values({
        channel: 'sms',
        prefix: '52551237',
        account_id: a.id,
        carriers: '["simulator","telcel"]',
        created_at: Date.now(),
      })
      .execute();
    await eventually(async () => h.ctx.carriers.manager.routes.some((r) => r.accountId === a.id), 10_000);
    const sent = await h.post('/sms/send', { numbers: '5512370002', message: 'Promo' }, a.apikey);
    expect(await stored(sent.body.references[0].reference)).toMatchObject({ stage: 0, carrier: null });
    const answer = await h.post('/simulator/replies', { number: '5512370002', response: 'STOP' }, a.apikey);
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('simulator_04');
    expect((await h.get('/optouts', a.apikey)).body.optouts).toEqual([]);
  });

  // Last: the driver put in front of SMS stays there.
  it('a message waiting for a real carrier put in front of the channel gets 404', async () => {
    const a = await h.createAccount(5);
    realCarrierInFront(h);
    const sent = await h.post('/sms/send', { numbers: '5512370003', message: 'Promo' }, a.apikey);
    expect(await stored(sent.body.references[0].reference)).toMatchObject({ stage: 0, carrier: null });
    const answer = await h.post('/simulator/replies', { number: '5512370003', response: 'STOP' }, a.apikey);
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('simulator_04');
  });
});
