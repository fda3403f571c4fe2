import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { optoutTools } from '../../../test/helpers/optouts.js';
import { freshPhone, otpClient, recordCarrier } from '../otp/testing.js';
import { DEFAULT_MESSAGE } from '../otp/text.js';
import { setOptoutSettings } from './service.js';

/**
 * The OTP exemption (`--optout-exempt-otp on`) covers the standard code text
 * only: a custom `message` could carry marketing, so it obeys the list like
 * any other message.
 */
describeEngines('opt-outs and the OTP exemption', (engine) => {
  let h: Harness;
  let carrier: ReturnType<typeof recordCarrier>;
  beforeAll(async () => {
    h = await startHarness(engine);
    carrier = recordCarrier(h.ctx);
  });
  afterAll(() => h.close());
  const { credit, optOut } = optoutTools(() => h);

  async function exemptFamily() {
    const a = await h.createAccount(10);
    await setOptoutSettings(h.ctx.db.kysely, a.id, { exemptOtp: true });
    return a;
  }

  it('a code with a custom message is held back from an opted-out number even when codes are exempt', async () => {
    const a = await exemptFamily();
    const client = otpClient(h, a.apikey, freshPhone());
    await optOut(a.apikey, client.number.phone_number);
    const promo = 'Tu codigo {{code}} de {{company}}. 50% de descuento hoy en acme.mx/promo';
    const sent = await client.send({ message: promo });
    expect(sent.status).toBe(201);
    expect(await client.messages()).toMatchObject([{ dlr_code: 10, price_units: 0, stage: 2 }]);
    expect(carrier.textsTo(client.fullNumber)).toEqual([]);
    expect(await credit(a.apikey)).toBe(10);
  });

  it('the standard code text is exempt, whether the message is left out or written as the default', async () => {
    const a = await exemptFamily();
    for (const body of [{}, { message: DEFAULT_MESSAGE }]) {
      const client = otpClient(h, a.apikey, freshPhone());
      await optOut(a.apikey, client.number.phone_number);
      expect((await client.send(body)).status).toBe(201);
      expect(carrier.textsTo(client.fullNumber)).toHaveLength(1);
    }
    expect(await credit(a.apikey)).toBe(8);
  });

  it('without the exemption a custom message to a number not on the list goes out as usual', async () => {
    const a = await h.createAccount(10);
    const client = otpClient(h, a.apikey, freshPhone());
    expect((await client.send({ message: 'Codigo {{code}} de {{company}}' })).status).toBe(201);
    expect(carrier.textsTo(client.fullNumber)).toHaveLength(1);
  });
});
