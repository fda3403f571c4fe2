import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { SMPP_ENV, smppTools } from '../../../test/helpers/smpp-suite.js';

/** Receipts as SMSCs really write them: in UCS-2 or Latin-1, and sometimes unreadable. */
describeEngines('SMPP receipts in any coding', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { cli, carrier, send, message, finalMessage } = smppTools(() => h);

  it.each([
    ['UCS-2 (data_coding 8)', '525531', { stat: 'DELIVRD', coding: 'ucs2' }, 0],
    ['UCS-2 with TLVs', '525532', { stat: 'UNDELIV', err: '001', coding: 'ucs2', tlv: true }, 6],
    ['Latin-1 (data_coding 3)', '525533', { stat: 'UNDELIV', err: '027', coding: 'latin1' }, 2],
  ] as const)('applies a receipt written in %s', async (_name, prefix, plan, code) => {
    await carrier({ receipt: () => ({ ...plan }) }, [], { prefix });
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, `${prefix.slice(2)}000001`);
    expect((await finalMessage(ref)).dlr_code).toBe(code);
  });

  it('lists, counts and logs a receipt it cannot read, and leaves the message as it was', async () => {
    const { name } = await carrier({ receipt: () => ({ stat: 'DELIVRD', text: () => 'ok ok ok' }) }, [], {
      prefix: '525534',
    });
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, '5534000001');
    await eventually(async () => (await message(ref)).carrier_id !== null);
    const rejections = await eventually(async () => {
      const r = (await cli('carriers', 'rejections', '--json')).rejections as Array<Record<string, unknown>>;
      return r.find((x) => x.carrier === name);
    });
    expect(rejections).toMatchObject({ reason: 'unreadable receipt', from: 'smsc', count: 1 });
    const metrics = await eventually(async () => {
      const body = (await h.get('/metrics')).body as string;
      return body.includes(`mensajero_carrier_messages{carrier="${name}",kind="unreadable_receipts"} 1`) ? body : null;
    });
    expect(metrics).toContain(`mensajero_carrier_messages{carrier="${name}",kind="receipts"} 1`);
    expect(await message(ref)).toMatchObject({ stage: 1, dlr_code: null });
  });
});
