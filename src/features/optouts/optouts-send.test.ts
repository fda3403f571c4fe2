import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { simulatedReply } from '../../../test/helpers/simulated-reply.js';
import { optoutTools } from '../../../test/helpers/optouts.js';
import { freshPhone, otpClient, recordCarrier } from '../otp/testing.js';
import { setOptoutSettings } from './service.js';
import { dispatchCampaign } from '../../messaging/dispatch.js';
import { createInstance } from '../chatapp/store.js';

/** The send path's rule: an opted-out recipient is recorded with status 10, never charged, never handed over. */
describeEngines('opt-outs in the send path', (engine) => {
  let h: Harness;
  let carrier: ReturnType<typeof recordCarrier>;
  beforeAll(async () => {
    h = await startHarness(engine);
    carrier = recordCarrier(h.ctx);
  });
  afterAll(() => h.close());
  const { credit, optOut, message, events, subAccountOf } = optoutTools(() => h);

  it('a send mixing opted-out and other numbers charges only the others, exactly', async () => {
    const a = await h.createAccount(10);
    expect((await optOut(a.apikey, '5512340002,5512340004')).body).toMatchObject({ code: 'optout_02', added: 2 });
    const r = await h.post(
      '/sms/send',
      { numbers: '5512340001,5512340002,5512340003,5512340004', message: 'Hola' },
      a.apikey,
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, code: 'sms_11', total_messages: 4, credit: 2 });
    expect(await credit(a.apikey)).toBe(8);
    const [m1, m2, m3, m4] = await Promise.all(
      r.body.references.map((x: { reference: string }) => message(x.reference)),
    );
    for (const blocked of [m2, m4])
      expect(blocked).toMatchObject({ stage: 2, status: 'refused', dlr_code: 10, price_units: 0, carrier: null });
    await eventually(async () => carrier.textsTo('525512340001').length + carrier.textsTo('525512340003').length === 2);
    expect(carrier.textsTo('525512340002')).toEqual([]);
    expect(carrier.textsTo('525512340004')).toEqual([]);
    expect(m1.price_units).toBeGreaterThan(0);
    expect(m3.price_units).toBe(m1.price_units);
    const confirmations = await events(a.id, 'confirmation');
    const tens = confirmations.filter((e) => e.status === '10').map((e) => e.number);
    expect(tens.sort()).toEqual(['525512340002', '525512340004']);
    expect(confirmations.find((e) => e.number === '525512340002')).toMatchObject({
      type: 'confirmation',
      reference: m2.reference,
      status: '10',
    });
    // The report names the code: blacklist, and the message counts as not charged.
    const report = await h.post('/reports/details', { campaign_id: m1.campaign_id }, a.apikey);
    expect(report.body.details).toMatchObject({ totals: 4, failed: 2, not_charged: 2 });
  });

  it('a send whose every recipient opted out succeeds, charges nothing and hands nothing over', async () => {
    const a = await h.createAccount(1);
    await optOut(a.apikey, '5512340010');
    const r = await h.post('/sms/send', { numbers: '5512340010', message: 'Hola' }, a.apikey);
    expect(r.body).toMatchObject({ success: true, code: 'sms_11', credit: 0 });
    expect(await credit(a.apikey)).toBe(1);
    expect(await message(r.body.references[0].reference)).toMatchObject({ status: 'refused', dlr_code: 10 });
    // An account with no credits can still "send" to an opted-out number: nothing is charged.
    const broke = await h.createAccount(0);
    await optOut(broke.apikey, '5512340010');
    expect((await h.post('/sms/send', { numbers: '5512340010', message: 'Hola' }, broke.apikey)).body.code).toBe(
      'sms_11',
    );
  });

  it('a sub-account shares its parent’s list, both ways', async () => {
    const parent = await h.createAccount(5);
    const sub = await subAccountOf(parent, 5);
    await optOut(parent.apikey, '5512340020');
    await optOut(sub.apikey, '5512340021');
    for (const account of [parent, sub]) {
      const r = await h.post(
        '/sms/send',
        { numbers: '5512340020,5512340021,5512340022', message: 'Hola' },
        account.apikey,
      );
      expect(r.body.credit).toBe(1);
      expect(await credit(account.apikey)).toBe(4);
    }
    const other = await h.createAccount(5);
    expect((await h.post('/sms/send', { numbers: '5512340020', message: 'Hola' }, other.apikey)).body.credit).toBe(1);
  });

  it('a scheduled send records an opted-out recipient at once, uncharged', async () => {
    const a = await h.createAccount(3);
    await optOut(a.apikey, '5512340030');
    const r = await h.post(
      '/sms/send',
      { numbers: '5512340030,5512340031', message: 'Hola', date: '2099-01-01 10:00:00' },
      a.apikey,
    );
    expect(r.body.credit).toBe(1);
    const [blocked, held] = await Promise.all(
      r.body.references.map((x: { reference: string }) => message(x.reference)),
    );
    expect(blocked).toMatchObject({ status: 'refused', dlr_code: 10, stage: 2 });
    expect(held).toMatchObject({ status: 'scheduled', stage: 0 });
  });

  it('a number that opts out after its message was accepted never gets it: status 10, refunded', async () => {
    const a = await h.createAccount(3);
    const r = await h.post(
      '/sms/send',
      { numbers: '5512340050,5512340051', message: 'Hola', date: '2099-01-01 10:00:00' },
      a.apikey,
    );
    expect(await credit(a.apikey)).toBe(1);
    await optOut(a.apikey, '5512340050');
    const [late, kept] = await Promise.all(r.body.references.map((x: { reference: string }) => message(x.reference)));
    await dispatchCampaign(h.ctx, late.campaign_id);
    expect(await message(late.reference)).toMatchObject({ stage: 2, status: 'refused', dlr_code: 10 });
    expect((await message(kept.reference)).stage).toBe(1);
    expect(carrier.textsTo('525512340050')).toEqual([]);
    expect(carrier.textsTo('525512340051')).toEqual(['Hola']);
    expect(await credit(a.apikey)).toBe(2);
    expect((await events(a.id, 'confirmation')).filter((e) => e.status === '10')).toMatchObject([
      { reference: late.reference, number: '525512340050' },
    ]);
  });

  it('voice calls obey the list too', async () => {
    const a = await h.createAccount(10);
    await optOut(a.apikey, '5512340040');
    const r = await h.post(
      '/voice/send',
      { numbers: '5512340040,5512340041', country_code: '52', template: 'a', code: '4815' },
      a.apikey,
    );
    expect(r.status).toBe(200);
    expect(await credit(a.apikey)).toBe(8);
    expect(await message(r.body.references[0].reference)).toMatchObject({ dlr_code: 10, price_units: 0 });
  });

  it('chat-app messages obey the list, and a keyword answering one is confirmed from the same instance', async () => {
    const a = await h.createAccount(2);
    const { instance_id } = await createInstance(h.ctx.db.kysely, a.id);
    await setOptoutSettings(h.ctx.db.kysely, a.id, { confirmation: 'Listo, ya no te escribiremos.' });
    const chat = (number: string) => h.post('/chatapp/send', { instance_id, number, message: 'Hola' }, a.apikey);
    expect((await chat('5512340060')).body.credit).toBe(0.5);
    expect((await simulatedReply(h, a.apikey, '5512340060', 'Stop')).status).toBe(200);
    const blocked = await chat('5512340060');
    expect(blocked.body).toMatchObject({ success: true, credit: 0 });
    expect(await message(blocked.body.reference)).toMatchObject({ channel: 'chatapp', dlr_code: 10, price_units: 0 });
    const sent = await h.ctx.db.kysely
      .selectFrom('messages')
      .selectAll()
      .where('number', '=', '525512340060')
      .where('text', '=', 'Listo, ya no te escribiremos.')
      .executeTakeFirstOrThrow();
    expect(sent).toMatchObject({ channel: 'chatapp', price_units: 0 });
    expect(JSON.parse(sent.meta!)).toEqual({ instance_id, type: 'text' });
    await eventually(async () => carrier.textsTo('525512340060').length === 2);
    expect(await credit(a.apikey)).toBe(1.5);
  });

  it('an OTP code to an opted-out number is not sent unless the account exempts OTP codes', async () => {
    const a = await h.createAccount(10);
    const sub = await subAccountOf(a, 10);
    const blocked = otpClient(h, sub.apikey, freshPhone());
    await optOut(a.apikey, blocked.number.phone_number);
    const sent = await blocked.send();
    expect(sent.status).toBe(201);
    expect(await blocked.messages()).toMatchObject([{ dlr_code: 10, price_units: 0, stage: 2 }]);
    // The code is never kept in clear, sent or not.
    expect((await blocked.messages())[0].text).not.toContain(sent.body.code);
    expect((await blocked.messages())[0].text).toContain('******');
    expect(carrier.textsTo(blocked.fullNumber)).toEqual([]);
    expect(await credit(sub.apikey)).toBe(10);

    await setOptoutSettings(h.ctx.db.kysely, a.id, { exemptOtp: true });
    const exempt = otpClient(h, sub.apikey, freshPhone());
    await optOut(a.apikey, exempt.number.phone_number);
    expect((await exempt.send()).status).toBe(201);
    expect(carrier.textsTo(exempt.fullNumber)).toHaveLength(1);
    expect(await credit(sub.apikey)).toBe(9);
    // The exemption is for codes only: an SMS to that number is still held back.
    const sms = await h.post('/sms/send', { numbers: exempt.number.phone_number, message: 'Hola' }, sub.apikey);
    expect(sms.body.credit).toBe(0);
  });
});
