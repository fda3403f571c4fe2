import { beforeAll, expect, it, vi } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../../test/helpers/harness.js';
import { whatsappSuite } from '../../../test/helpers/whatsapp-cloud-suite.js';

// These wait on dispatch retries and webhook deliveries; CI runs them beside the crash suite, which loads both cores.
vi.setConfig({ testTimeout: 90_000 });

describeEngines('WhatsApp Cloud API connector', (engine) => {
  const { suite, setup, message, sent } = whatsappSuite(engine);
  let h: Harness;
  let wa: typeof suite.wa;
  beforeAll(() => {
    ({ h, wa } = suite);
  });

  it('retries when the provider rate-limits or is down: sent once it answers, charged once; a permanent refusal is final', async () => {
    const a = await setup();
    wa.failures.push(
      { http: 429, code: 130429, message: 'Rate limit hit' },
      { http: 500, code: 131000, message: 'Something went wrong' },
    );
    const before = wa.sends().length;
    const r = await h.post(
      '/chatapp/send',
      { instance_id: a.instance, number: '5512341111', message: 'Reintento' },
      a.apikey,
    );
    const m = await sent(r.body.reference);
    expect(m).toMatchObject({ stage: 1, carrier: 'wa' });
    expect(
      wa
        .sends()
        .slice(before)
        .filter((s) => JSON.parse(s.body).to === '525512341111'),
    ).toHaveLength(3);
    expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(9.5);

    wa.failures.push({ http: 400, code: 131026, message: 'Message undeliverable' });
    const p = await h.post(
      '/chatapp/send',
      { instance_id: a.instance, number: '5512342222', message: 'No llega' },
      a.apikey,
    );
    const refused = await eventually(
      async () => ((await message(p.body.reference)).stage === 2 ? message(p.body.reference) : null),
      40_000,
    );
    expect(refused).toMatchObject({ dlr_code: 1, carrier: 'wa' });
  });
});
