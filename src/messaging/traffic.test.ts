import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { runCommands } from '../../test/helpers/cli.js';
import { SMPP_ENV, smppTools } from '../../test/helpers/smpp-suite.js';
import { accountCommands } from '../features/accounts/cli.js';
import { send } from './send.js';

/** Classes, family settings and validity of traffic control (docs/operators/traffic.md), on both engines. */
describeEngines('traffic control: classes, settings and validity', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const cli = (...args: string[]) => runCommands(h.ctx, [accountCommands], [...args, '--json']);
  const { carrier } = smppTools(() => h);
  const messagesOf = (accountId: number) =>
    h.ctx.db.kysely
      .selectFrom('messages')
      .select(['id', 'number', 'traffic_class', 'valid_until', 'stage', 'dlr_code', 'refunded'])
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();

  it('classes a send by its size and schedule unless the family pins a class; OTP codes stay otp', async () => {
    const a = await h.createAccount(100);
    const small = await h.post('/sms/send', { numbers: '5527000001', message: 'Hola' }, a.apikey);
    const eleven = Array.from({ length: 11 }, (_, i) => `55270001${String(i).padStart(2, '0')}`).join(',');
    const big = await h.post('/sms/send', { numbers: eleven, message: 'Hola' }, a.apikey);
    expect([small.body.code, big.body.code]).toEqual(['sms_11', 'sms_11']);
    const before = await messagesOf(a.id);
    expect(before[0].traffic_class).toBe('transactional');
    expect(new Set(before.slice(1).map((m) => m.traffic_class))).toEqual(new Set(['bulk']));

    expect((await cli('accounts', 'set', '--email', a.email, '--traffic-class', 'bulk')).traffic_class).toBe('bulk');
    await h.post('/sms/send', { numbers: '5527000002', message: 'Hola' }, a.apikey);
    const otp = await h.post(
      '/v2/otp',
      { phone_number: '5527000003', country_code: '52', channel: 'sms', company: 'Acme' },
      a.apikey,
    );
    expect(otp.status).toBe(201);
    const after = await messagesOf(a.id);
    expect(after.find((m) => m.number === '525527000002')?.traffic_class).toBe('bulk');
    const code = after.find((m) => m.number === '525527000003')!;
    expect(code.traffic_class).toBe('otp');
    // A code is worth sending while it can be used: its lifetime is its validity.
    expect(Number(code.valid_until)).toBeGreaterThan(Date.now() + 3600_000);
  });

  it("keeps a family's settings on its top account and refuses them on a sub-account", async () => {
    const parent = await h.createAccount(100);
    const added = await h.post(
      '/manager/subaccount/add',
      { email: 'hija@example.com', password: 'secret123' },
      parent.apikey,
    );
    expect(added.body.code).toBe('subaccount_01');
    const set = await cli(
      ...['accounts', 'set', '--email', parent.email],
      ...['--traffic-class', 'transactional', '--traffic-weight', '3', '--validity-minutes', '30'],
    );
    expect(set).toMatchObject({ traffic_class: 'transactional', traffic_weight: 3, validity_minutes: 30 });
    const sub = await cli(
      'accounts',
      'set',
      '--email',
      'hija@example.com',
      '--parent',
      parent.email,
      '--traffic-class',
      'bulk',
    );
    expect(sub.error).toMatch(/top-level account/);
    for (const [flag, value] of [
      ['--traffic-class', 'urgent'],
      ['--traffic-weight', '0'],
      ['--traffic-weight', '101'],
      ['--validity-minutes', '10081'],
      ['--validity-minutes', '1.5'],
    ])
      expect((await cli('accounts', 'set', '--email', parent.email, flag, value)).error).toBeDefined();
    // The family's default validity applies to a send that names none, from the send.
    const t0 = Date.now();
    await h.post('/sms/send', { numbers: '5527000010', message: 'Hola' }, parent.apikey);
    const [m] = await messagesOf(parent.id);
    expect(Number(m.valid_until)).toBeGreaterThanOrEqual(t0 + 30 * 60_000);
    expect(Number(m.valid_until)).toBeLessThan(Date.now() + 30 * 60_000 + 1000);
    expect(
      (await cli('accounts', 'set', '--email', parent.email, '--validity-minutes', 'none')).validity_minutes,
    ).toBeNull();
  });

  it("takes /sms/send's validity in minutes and refuses anything else with sms_43", async () => {
    const a = await h.createAccount(100);
    for (const validity of [0, 10081, 1.5, 'soon', -3])
      expect(
        (await h.post('/sms/send', { numbers: '5527000020', message: 'Hola', validity }, a.apikey)).body.code,
      ).toBe('sms_43');
    const t0 = Date.now();
    const ok = await h.post('/sms/send', { numbers: '5527000021', message: 'Hola', validity: '15' }, a.apikey);
    expect(ok.body.code).toBe('sms_11');
    const [m] = await messagesOf(a.id);
    expect(Number(m.valid_until) - t0).toBeGreaterThanOrEqual(15 * 60_000);
  });

  it('closes, refunds and reports as expired a message whose validity ends while it waits in the line', async () => {
    // A carrier that never answers, one place: the first message takes it, the second waits.
    await carrier({ answer: () => 'silence' }, ['--window', '1'], { prefix: '525528' });
    const a = await h.createAccount(10);
    const one = (number: string, validUntil?: number) =>
      send(
        h.ctx,
        [
          {
            accountId: a.id,
            channel: 'sms',
            source: 'sms',
            recipients: [{ countryCode: '52', number }],
            text: 'Hola',
            ...(validUntil === undefined ? {} : { validUntil }),
          },
        ],
        'inline',
      );
    await one('525528000001');
    await one('525528000002', Date.now() + 1500);
    const expired = await eventually(async () => {
      const m = (await messagesOf(a.id)).find((x) => x.number === '525528000002');
      return m?.stage === 2 ? m : null;
    }, 15_000);
    expect(expired).toMatchObject({ dlr_code: 3, refunded: 1 });
    const event = await h.ctx.db.kysely
      .selectFrom('events')
      .select('payload')
      .where('account_id', '=', a.id)
      .where('type', '=', 'confirmation')
      .execute();
    expect(event.map((e) => String(JSON.parse(e.payload).status))).toContain('3');
  });
});
