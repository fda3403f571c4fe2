import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeEngines,
  eventually,
  startHarness,
  type Harness,
  type TestAccount,
} from '../../test/helpers/harness.js';
import { receiver, settle } from '../../test/helpers/webhook-delivery.js';
import { runCommands } from '../../test/helpers/cli.js';
import { accountCommands } from '../features/accounts/cli.js';

describeEngines('low-balance events', (engine) => {
  let h: Harness;
  let hook: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    h = await startHarness(engine, {
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50', RATE_LIMIT_PER_SECOND: '10000' },
    });
    hook = await receiver();
  });
  afterAll(async () => {
    await h.close();
    await hook.stop();
  });

  const accounts = (...args: string[]) => runCommands(h.ctx, [accountCommands], ['accounts', ...args, '--json']);
  const send = async (a: TestAccount, count: number) => {
    const numbers = Array.from({ length: count }, (_, i) => `55123456${String(i).padStart(2, '0')}`).join(',');
    const r = await h.post('/sms/send', { numbers, message: 'Hola' }, a.apikey);
    expect(r.body.code).toBe('sms_11');
  };
  const recorded = (a: TestAccount) =>
    h.ctx.db.kysely
      .selectFrom('events')
      .selectAll()
      .where('account_id', '=', a.id)
      .where('type', '=', 'low_balance')
      .orderBy('id')
      .execute()
      .then((rows) => rows.map((e) => JSON.parse(e.payload) as Record<string, string>));
  const delivered = (a: TestAccount) =>
    hook.deliveries().filter((d) => d.params.type === 'low_balance' && d.path === `/hook/${a.id}`);

  async function account(credits: number, threshold: string): Promise<TestAccount> {
    const a = await h.createAccount(credits);
    expect((await h.post('/webhook/add', { url: `${hook.url}/${a.id}`, status: '1' }, a.apikey)).body.code).toBe(
      'add_webhook_01',
    );
    expect(await accounts('set', '--email', a.email, '--low-balance', threshold)).toMatchObject({
      low_balance: Number(threshold),
    });
    return a;
  }

  it('sends one event, with the balance right after the crossing send, to the webhook like the other events', async () => {
    const a = await account(10, '5');
    await send(a, 3); // 7: above
    await send(a, 2); // 5: not below
    expect(await recorded(a)).toEqual([]);
    await send(a, 2); // 3: crossed
    await send(a, 1); // 2: still below, no second event
    await eventually(async () => delivered(a).length === 1, 10_000);
    await settle();
    expect(await recorded(a)).toHaveLength(1);
    const [event] = delivered(a);
    expect(event.method).toBe('POST');
    expect(event.params).toEqual({ type: 'low_balance', credits: '3', threshold: '5', date: expect.any(String) });
    expect(event.params.date).toMatch(/^\d{14}$/);
    expect(delivered(a)).toHaveLength(1);
  });

  it('fires again only after the balance has risen strictly above the threshold', async () => {
    const a = await account(6, '5');
    await send(a, 2); // 4: first crossing
    expect(await accounts('credits', '--email', a.email, '--add', '1')).toEqual({ email: a.email, credits: 5 });
    await send(a, 1); // 4 again, but the balance never rose above 5
    expect((await recorded(a)).map((e) => e.credits)).toEqual(['4']);
    await accounts('credits', '--email', a.email, '--add', '1.5'); // 5.5: above, re-armed
    await send(a, 3); // 2.5: second crossing
    expect((await recorded(a)).map((e) => e.credits)).toEqual(['4', '2.5']);
  });

  it('an operator withdrawal that crosses the threshold reports it too', async () => {
    const a = await account(20, '10.5');
    expect(await accounts('credits', '--email', a.email, '--add', '-12')).toEqual({ email: a.email, credits: 8 });
    expect(await recorded(a)).toEqual([
      { type: 'low_balance', credits: '8', threshold: '10.5', date: expect.stringMatching(/^\d{14}$/) },
    ]);
  });

  it('100 parallel sends crossing the threshold produce exactly one event', async () => {
    const a = await account(150, '100');
    await Promise.all(Array.from({ length: 100 }, () => send(a, 1)));
    expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(50);
    // Sends are serialised on the account's row: the crossing one took the balance from 100 to 99.
    expect((await recorded(a)).map((e) => [e.credits, e.threshold])).toEqual([['99', '100']]);
    await eventually(async () => delivered(a).length === 1, 10_000);
  });

  it('is off by default and with --low-balance off; refuses a threshold that is not a positive amount', async () => {
    const a = await h.createAccount(3);
    await send(a, 3);
    expect(await accounts('set', '--email', a.email, '--low-balance', '2')).toMatchObject({ low_balance: 2 });
    expect(await accounts('set', '--email', a.email, '--low-balance', 'off')).toMatchObject({ low_balance: null });
    for (const bad of ['0', '-1', 'abc', '1.00001', ''])
      expect((await accounts('set', '--email', a.email, '--low-balance', bad)).error).toMatch(/--low-balance/);
    expect(await recorded(a)).toEqual([]);
  });
});
