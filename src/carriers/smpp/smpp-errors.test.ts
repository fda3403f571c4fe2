import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { SMPP_ENV, smppTools } from '../../../test/helpers/smpp-suite.js';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';

/** A port nothing listens on (a carrier that is down). */
async function deadPort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describeEngines('SMPP carriers end to end', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { unique, cli, carrier, send, message, finalMessage, credit } = smppTools(() => h);

  it('closes a permanent refusal with status 4, refunded; throttling slows down and the message goes through once', async () => {
    const { smsc, name } = await carrier(
      { answer: (s, i) => (s.destination.endsWith('99') ? { status: 0x0b } : i < 3 ? { status: 0x58 } : 'accept') },
      [],
      { prefix: '525519' },
    );
    const a = await h.createAccount(10);
    const [refused] = await send(a.apikey, '5519000099');
    expect(await finalMessage(refused)).toMatchObject({ status: 'refused', dlr_code: 4 });
    const [throttled] = await send(a.apikey, '5519000001');
    await eventually(async () => (await message(throttled)).stage === 1);
    expect(smsc.submitted.filter((s) => s.destination === '525519000001')).toHaveLength(1);
    expect(await credit(a.apikey)).toBe(9);
    const status = (await cli('carriers', 'status')).carriers.find((c: { name: string }) => c.name === name);
    expect(status).toMatchObject({ state: 'bound', refused: 1 });
    expect(status.throttled).toBeGreaterThanOrEqual(2);
  });

  it('fails a destination with no route with status 12, refunded', async () => {
    const a = await h.createAccount(10);
    await cli('routes', 'remove', '--channel', 'sms', '--prefix', '');
    await eventually(async () => !h.ctx.carriers.manager.routes.some((r) => r.channel === 'sms' && r.prefix === ''));
    try {
      const [ref] = await send(a.apikey, '3312345678');
      expect(await finalMessage(ref)).toMatchObject({ dlr_code: 12, status: 'undelivered', carrier: null });
      expect(await credit(a.apikey)).toBe(10);
    } finally {
      await cli('routes', 'add', '--channel', 'sms', '--prefix', '', '--carriers', 'simulator');
    }
  });

  it('fails over to the second connector when the first is down, and pins an account to its own route', async () => {
    const down = unique('down');
    await cli(
      'carriers',
      'add',
      'smpp',
      '--name',
      down,
      '--host',
      '127.0.0.1',
      '--port',
      String(await deadPort()),
      '--system-id',
      'x',
      '--password',
      'x',
    );
    const { smsc, name } = await carrier({}, [], { prefix: '525520', before: [down] });
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, '5520000001');
    await eventually(async () => (await message(ref)).stage >= 1);
    expect(smsc.submitted.map((s) => s.destination)).toEqual(['525520000001']);
    expect(await message(ref)).toMatchObject({ carrier: name, carrier_id: smsc.submitted[0].messageId });
    // An account-pinned route beats the shared one, whatever its prefix.
    const own = await carrier();
    const b = await h.createAccount(10, `${unique('pinned')}@example.com`);
    expect(
      await cli('routes', 'add', '--channel', 'sms', '--prefix', '52', '--carriers', own.name, '--account', b.email),
    ).toEqual({
      id: expect.any(Number),
      channel: 'sms',
      prefix: '52',
      carriers: [own.name],
      strategy: 'priority',
      account: b.email,
    });
    await eventually(async () => h.ctx.carriers.manager.routes.some((r) => r.accountId === b.id));
    await send(b.apikey, '5520000002');
    await eventually(async () => own.smsc.submitted.length === 1);
    expect(smsc.submitted).toHaveLength(1);
    // routes list (and the panel's operator view) names a sub-account by its plain email, never '<parent id> <email>'.
    const subEmail = `${unique('routed')}@example.com`;
    expect(
      (await h.post('/manager/subaccount/add', { email: subEmail, password: 'secret123' }, b.apikey)).body.success,
    ).toBe(true);
    await cli(
      'routes',
      'add',
      '--channel',
      'sms',
      '--prefix',
      '53',
      '--carriers',
      own.name,
      '--account',
      `${b.id} ${subEmail}`,
    );
    const listed = (await cli('routes', 'list')) as { routes: Array<{ prefix: string; account: string | null }> };
    expect(listed.routes.find((r) => r.prefix === '53')?.account).toBe(subEmail);
  });
});
