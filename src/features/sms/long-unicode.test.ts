import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeEngines,
  eventually,
  startHarness,
  type Harness,
  type TestAccount,
} from '../../../test/helpers/harness.js';
import { SMPP_ENV, smppTools } from '../../../test/helpers/smpp-suite.js';
import { runCommands } from '../../../test/helpers/cli.js';
import { accountCommands } from '../accounts/cli.js';
import { decodeMessage, smsParts } from '../../smpp-protocol/encoding.js';

/**
 * Long and Unicode SMS over HTTP, per account (`accounts set --long-sms`,
 * `--unicode`): off keeps one SMS of 160 GSM-7 characters; on, the SMSC gets
 * the concatenated parts (UDH) and UCS-2, and the account pays each part.
 */
describeEngines('long and Unicode SMS per account', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { carrier } = smppTools(() => h);

  const accounts = (...args: string[]) => runCommands(h.ctx, [accountCommands], ['accounts', ...args, '--json']);
  const credit = async (a: { apikey: string }) => (await h.post('/credits/consult', {}, a.apikey)).body.credit;
  const storedText = async (reference: string) =>
    (await h.ctx.db.kysely.selectFrom('messages').select('text').where('reference', '=', reference).executeTakeFirst())
      ?.text;
  const send = (a: { apikey: string }, numbers: string, message: string) =>
    h.post('/sms/send', { numbers, message }, a.apikey);

  async function account(flags: string[]): Promise<TestAccount> {
    const a = await h.createAccount(100);
    if (flags.length > 0) expect(await accounts('set', '--email', a.email, ...flags)).not.toHaveProperty('error');
    return a;
  }

  it('off (the default): 160 GSM-7 characters, others replaced; accounts set prints both off', async () => {
    const a = await account([]);
    expect(await accounts('set', '--email', a.email)).toMatchObject({ long_sms: false, unicode: false });
    expect((await send(a, '5512000001', 'x'.repeat(161))).body).toMatchObject({ code: 'sms_02' });
    const r = await send(a, '5512000001', 'Hola ☺ ñandú');
    expect(r.body).toMatchObject({ code: 'sms_11', credit: 1 });
    expect(await storedText(r.body.references[0].reference)).toBe('Hola ? ñandu');
  });

  it('long on: the SMSC gets every part with a concatenation UDH, each charged; past 10 parts sms_02', async () => {
    const { smsc } = await carrier({}, [], { prefix: '525513' });
    const a = await account(['--long-sms', 'on']);
    const text = 'Mensaje largo. '.repeat(20); // 300 GSM-7 characters: 2 parts of 153
    const r = await send(a, '5513000001', text);
    expect(r.body).toMatchObject({ code: 'sms_11', credit: 2 });
    expect(await credit(a)).toBe(98);
    await eventually(async () => smsc.submitted.filter((s) => s.destination === '525513000001').length === 2);
    const parts = smsc.submitted.filter((s) => s.destination === '525513000001');
    const decoded = parts.map((p) => decodeMessage(p.shortMessage, p.dataCoding, p.esmClass));
    expect(parts.map((p) => [p.esmClass, p.dataCoding])).toEqual([
      [0x40, 0],
      [0x40, 0],
    ]);
    expect(decoded.map((d) => d.concat?.total)).toEqual([2, 2]);
    expect(decoded.map((d) => d.text).join('')).toBe(text);

    const tooLong = await send(a, '5513000002', 'x'.repeat(153 * 10 + 1));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({ code: 'sms_02', parts: 11, max_parts: 10 });
    expect((await send(a, '5513000002', 'x'.repeat(153 * 10))).body).toMatchObject({ credit: 10 });
    expect(await credit(a)).toBe(88);
  });

  it('Unicode on: a text GSM-7 cannot hold goes as UCS-2, unreplaced; one part unless long is on too', async () => {
    const { smsc } = await carrier({}, [], { prefix: '525514' });
    const a = await account(['--unicode', 'on']);
    const r = await send(a, '5514000001', 'Hola ☺ ñandú');
    expect(r.body).toMatchObject({ code: 'sms_11', credit: 1 });
    expect(await storedText(r.body.references[0].reference)).toBe('Hola ☺ ñandú');
    await eventually(async () => smsc.submitted.some((s) => s.destination === '525514000001'));
    const [sent] = smsc.submitted.filter((s) => s.destination === '525514000001');
    expect(sent.dataCoding).toBe(8);
    expect(decodeMessage(sent.shortMessage, sent.dataCoding, sent.esmClass).text).toBe('Hola ☺ ñandú');
    expect((await send(a, '5514000002', '☺'.repeat(71))).body).toMatchObject({
      code: 'sms_02',
      parts: 2,
      max_parts: 1,
    });
    // A GSM-7 text is still GSM-7 (160 to a part).
    expect((await send(a, '5514000003', 'x'.repeat(160))).body).toMatchObject({ credit: 1 });

    const both = await account(['--unicode', 'on', '--long-sms', 'on']);
    const text = 'ñandú ☺ '.repeat(20); // 160 UTF-16 units: 3 parts of 67
    expect(smsParts(text)).toBe(3);
    expect((await send(both, '5514000004', text)).body).toMatchObject({ code: 'sms_11', credit: 3 });
    await eventually(async () => smsc.submitted.filter((s) => s.destination === '525514000004').length === 3);
    const parts = smsc.submitted.filter((s) => s.destination === '525514000004');
    expect(parts.every((p) => p.dataCoding === 8 && p.esmClass === 0x40)).toBe(true);
    expect(parts.map((p) => decodeMessage(p.shortMessage, 8, 0x40).text).join('')).toBe(text);
  });

  it('a sub-account follows its parent unless it has its own setting; bad values are refused', async () => {
    const parent = await account(['--long-sms', 'on', '--unicode', 'on']);
    const email = `sub-${parent.id}@example.com`;
    const sub = await h.post('/manager/subaccount/add', { email, password: 'branch1' }, parent.apikey);
    const subKey = { apikey: sub.body.apikey as string };
    await accounts('credits', '--email', email, '--parent', parent.email, '--add', '10');
    expect(await accounts('set', '--email', email, '--parent', parent.email)).toMatchObject({
      long_sms: true,
      unicode: true,
    });
    expect((await send(subKey, '5515000001', 'x'.repeat(200))).body).toMatchObject({ credit: 2 });
    expect(await accounts('set', '--email', email, '--parent', parent.email, '--long-sms', 'off')).toMatchObject({
      long_sms: false,
      unicode: true,
    });
    expect((await send(subKey, '5515000001', 'x'.repeat(200))).body).toMatchObject({ code: 'sms_02' });
    expect(await accounts('set', '--email', email, '--parent', parent.email, '--long-sms', 'default')).toMatchObject({
      long_sms: true,
    });
    expect(await accounts('set', '--email', parent.email, '--unicode', 'yes')).toEqual({
      error: '--unicode is on, off or default',
    });
  });
});
