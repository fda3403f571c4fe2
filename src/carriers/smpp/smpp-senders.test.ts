import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { runCommands } from '../../../test/helpers/cli.js';
import { SMPP_ENV, smppTools } from '../../../test/helpers/smpp-suite.js';
import { smsCommands } from '../../features/sms/cli.js';
import { sourceAddress } from './address.js';

describe('the source address type of a sender', () => {
  it.each([
    ['', 0, 0],
    ['MiTienda', 5, 0],
    ['Promo 2x1', 5, 0],
    ['555', 1, 1],
    ['55123', 1, 1],
    ['12345678', 1, 1],
    ['123456789', 1, 1],
    ['525512345678', 1, 1],
    ['123456789012345', 1, 1],
  ])('%j: TON %i, NPI %i', (sender, ton, npi) => expect(sourceAddress(sender)).toEqual({ ton, npi }));
});

describeEngines('numeric senders over SMPP', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { carrier, send } = smppTools(() => h);
  const senders = (...args: string[]) => runCommands(h.ctx, [smsCommands], ['senders', 'add', ...args, '--json']);

  it('senders add takes short codes and long numbers of 3 to 15 digits, and refuses other digit strings', async () => {
    const a = await h.createAccount(10);
    for (const sender of ['555', '55123', '525512345678', '123456789012345'])
      expect(await senders('--email', a.email, '--sender', sender)).toEqual({ sender, rcs: false });
    for (const sender of ['12', '1234567890123456', '55 123', '+525512345678'])
      expect((await senders('--email', a.email, '--sender', sender)).error).toMatch(/3 to 15 digits/);
  });

  it('each submit_sm carries the TON/NPI of its sender: alphanumeric 5/0, digits (short code or long number) 1/1', async () => {
    const { smsc } = await carrier({}, [], { prefix: '525541' });
    const a = await h.createAccount(100);
    const names = ['TIENDA', '55123', '525512345678', '123456789012345'];
    for (const sender of names) await senders('--email', a.email, '--sender', sender);
    for (const [i, sender] of names.entries()) await send(a.apikey, `554100000${i}`, { sender });
    // Not registered: the connector's default sender (none here: an empty address, TON 0 / NPI 0).
    await send(a.apikey, '5541000009', { sender: '5599' });
    await eventually(async () => smsc.submitted.length === 5, 10_000);
    const by = (n: string) => smsc.submitted.find((s) => s.destination === `52${n}`)!;
    expect(by('5541000000')).toMatchObject({ source: 'TIENDA', sourceTon: 5, sourceNpi: 0 });
    expect(by('5541000001')).toMatchObject({ source: '55123', sourceTon: 1, sourceNpi: 1 });
    expect(by('5541000002')).toMatchObject({ source: '525512345678', sourceTon: 1, sourceNpi: 1 });
    expect(by('5541000003')).toMatchObject({ source: '123456789012345', sourceTon: 1, sourceNpi: 1 });
    expect(by('5541000009')).toMatchObject({ source: '', sourceTon: 0, sourceNpi: 0 });
  });

  it("a connector's --source-ton/--source-npi still override the sender's type", async () => {
    const { smsc } = await carrier({}, ['--source-ton', '0', '--source-npi', '1'], { prefix: '525542' });
    const a = await h.createAccount(10);
    await senders('--email', a.email, '--sender', '55123');
    await send(a.apikey, '5542000001', { sender: '55123' });
    await eventually(async () => smsc.submitted.length === 1, 10_000);
    expect(smsc.submitted[0]).toMatchObject({ source: '55123', sourceTon: 0, sourceNpi: 1 });
  });
});
