import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { optoutTools } from '../../../test/helpers/optouts.js';
import { freshPhone, otpClient, recordCarrier } from '../otp/testing.js';
import { dispatchCampaign } from '../../messaging/dispatch.js';
import { DNC_ERROR } from '../../messaging/optouts.js';
import { addDoNotContact } from './service.js';

/** The send path's rule for the do-not-contact list: status 10, not charged, not handed over, for every account. */
describeEngines('the do-not-contact list in the send path', (engine) => {
  let h: Harness;
  let carrier: ReturnType<typeof recordCarrier>;
  beforeAll(async () => {
    h = await startHarness(engine);
    carrier = recordCarrier(h.ctx);
  });
  afterAll(() => h.close());
  const { credit, message, events, optOut } = optoutTools(() => h);
  const references = (r: { body: { references: Array<{ reference: string }> } }) =>
    Promise.all(r.body.references.map((x) => message(x.reference)));

  it('/sms/send with a listed and an unlisted recipient: the listed one is recorded with status 10 only', async () => {
    await addDoNotContact(h.ctx.db, '525512350001');
    const a = await h.createAccount(10);
    const r = await h.post('/sms/send', { numbers: '5512350001,5512350002', message: 'Oferta' }, a.apikey);
    expect(r.body).toMatchObject({ success: true, code: 'sms_11', total_messages: 2, credit: 1 });
    expect(await credit(a.apikey)).toBe(9);
    const [listed, other] = await references(r);
    expect(listed).toMatchObject({ stage: 2, status: 'refused', dlr_code: 10, price_units: 0, error: DNC_ERROR });
    expect(listed.carrier).toBeNull();
    await expectSentOnly(['525512350002'], ['525512350001']);
    expect(other.price_units).toBeGreaterThan(0);
    const tens = (await events(a.id, 'confirmation')).filter((e) => e.status === '10');
    expect(tens).toMatchObject([{ type: 'confirmation', reference: listed.reference, number: '525512350001' }]);
  });

  it('holds back a single recipient for any account, and a number on both lists once', async () => {
    await addDoNotContact(h.ctx.db, '525512350011');
    for (const a of [await h.createAccount(1), await h.createAccount(1)]) {
      await optOut(a.apikey, '5512350011');
      const r = await h.post('/sms/send', { numbers: '5512350011', message: 'Hola' }, a.apikey);
      expect(r.body).toMatchObject({ success: true, credit: 0 });
      expect(await message(r.body.references[0].reference)).toMatchObject({ dlr_code: 10, error: DNC_ERROR });
      expect(await credit(a.apikey)).toBe(1);
    }
    // A number only on an account's opt-out list keeps the opt-out's error.
    const b = await h.createAccount(1);
    await optOut(b.apikey, '5512350012');
    const r = await h.post('/sms/send', { numbers: '5512350012,5512350013', message: 'Hola' }, b.apikey);
    expect((await references(r))[0]).toMatchObject({ dlr_code: 10, error: 'not sent: the number opted out' });
    await expectSentOnly([], ['525512350011', '525512350012']);
  });

  it('a number listed after its message was accepted never gets it: status 10, refunded', async () => {
    const a = await h.createAccount(2);
    const r = await h.post(
      '/sms/send',
      { numbers: '5512350021,5512350022', message: 'Hola', date: '2099-01-01 10:00:00' },
      a.apikey,
    );
    expect(await credit(a.apikey)).toBe(0);
    await addDoNotContact(h.ctx.db, '525512350021');
    const [late, kept] = await references(r);
    await dispatchCampaign(h.ctx, late.campaign_id);
    expect(await message(late.reference)).toMatchObject({ stage: 2, dlr_code: 10, error: DNC_ERROR });
    expect((await message(kept.reference)).stage).toBe(1);
    await expectSentOnly(['525512350022'], ['525512350021']);
    expect(await credit(a.apikey)).toBe(1);
  });

  it('an OTP code in the standard text reaches a listed number; a custom text is held back', async () => {
    const a = await h.createAccount(10);
    const standard = otpClient(h, a.apikey, freshPhone());
    await addDoNotContact(h.ctx.db, standard.fullNumber);
    expect((await standard.send()).status).toBe(201);
    const custom = otpClient(h, a.apikey, freshPhone());
    await addDoNotContact(h.ctx.db, custom.fullNumber);
    expect((await custom.send({ message: 'Codigo {{code}} de {{company}}. 2x1 hoy en acme.mx' })).status).toBe(201);
    expect(await custom.messages()).toMatchObject([{ dlr_code: 10, price_units: 0, stage: 2, error: DNC_ERROR }]);
    await expectSentOnly([standard.fullNumber], [custom.fullNumber]);
    expect(await credit(a.apikey)).toBe(9);
  });

  it('voice calls and several recipients of one batch obey the list too', async () => {
    await addDoNotContact(h.ctx.db, '525512350031');
    const a = await h.createAccount(10);
    const r = await h.post(
      '/voice/send',
      { numbers: '5512350031,5512350032,5512350033', country_code: '52', template: 'a', code: '4815' },
      a.apikey,
    );
    expect(r.status).toBe(200);
    expect((await references(r)).map((m) => m.dlr_code === 10)).toEqual([true, false, false]);
    expect(await credit(a.apikey)).toBe(10 - r.body.credit);
    expect(r.body.credit).toBeGreaterThan(0);
  });

  /** Waits until each of `sent` reached the carrier, then checks none of `held` did. */
  async function expectSentOnly(sent: string[], held: string[]) {
    await eventually(async () => sent.every((n) => carrier.textsTo(n).length > 0));
    for (const n of held) expect(carrier.textsTo(n), n).toEqual([]);
  }
});
