import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';
import { runCommands } from '../../../test/helpers/cli.js';
import { accountCommands } from './cli.js';
import { smsCommands } from '../sms/cli.js';
import { chatappCli } from '../chatapp/cli.js';
import { walletCommands } from '../wallet/cli.js';
import { loyaltyCommands } from '../loyalty/cli.js';
import { otpCommands } from '../otp/cli.js';
import { webhookCommands } from '../../webhooks/cli.js';

/**
 * Every command that names an account by --email takes --parent to name a
 * sub-account by its plain email: it acts on that parent's sub-account, not
 * on a top-level account nor another parent's sub-account with the same email.
 */
describeEngines('CLI --parent names a sub-account', (engine) => {
  let h: Harness;
  let parent: TestAccount;
  let sub: { id: number; apikey: string };
  let otherSubId: number;
  let topLevel: TestAccount;
  const EMAIL = 'branch@example.com';
  const registrars = [
    accountCommands,
    smsCommands,
    chatappCli,
    walletCommands,
    loyaltyCommands,
    otpCommands,
    webhookCommands,
  ];
  const mensajero = (args: string[]) => runCommands(h.ctx, registrars, [...args, '--json']);
  const asSub = (args: string[]) => mensajero([...args, '--email', EMAIL, '--parent', parent.email]);
  const accountRow = (id: number) =>
    h.ctx.db.kysely.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  async function addSub(owner: TestAccount): Promise<{ id: number; apikey: string }> {
    const r = await h.post('/manager/subaccount/add', { email: EMAIL, password: 'secret123' }, owner.apikey);
    expect(r.body.code).toBe('subaccount_01');
    const row = await h.ctx.db.kysely
      .selectFrom('accounts')
      .select('id')
      .where('parent_id', '=', owner.id)
      .executeTakeFirstOrThrow();
    return { id: row.id, apikey: r.body.apikey };
  }

  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    parent = await h.createAccount(100, 'parent@example.com');
    const other = await h.createAccount(100, 'other@example.com');
    topLevel = await h.createAccount(0, EMAIL);
    sub = await addSub(parent);
    otherSubId = (await addSub(other)).id;
  });
  afterAll(() => h.close());

  it("accounts credits, set and rotate-key act on the parent's sub-account only", async () => {
    expect(await asSub(['accounts', 'credits', '--add', '7'])).toEqual({ email: EMAIL, credits: 7 });
    const set = await asSub(['accounts', 'set', '--rate-limit', '3']);
    expect(set).toMatchObject({ email: EMAIL, parent_id: parent.id, rate_limit_per_sec: 3 });
    for (const id of [otherSubId, topLevel.id])
      expect(await accountRow(id)).toMatchObject({ credits: 0, rate_limit_per_sec: null });

    const rotated = await asSub(['accounts', 'rotate-key']);
    expect(rotated.email).toBe(EMAIL);
    expect((await h.post('/credits/consult', {}, sub.apikey)).status).toBe(401);
    expect((await h.post('/credits/consult', {}, rotated.apikey)).body.credit).toBe(7);
    expect((await h.post('/credits/consult', {}, topLevel.apikey)).body.credit).toBe(0);
  });

  it('senders, chat-app instances, wallets, loyalty, OTP settings, webhooks and events belong to the sub-account', async () => {
    expect(await asSub(['senders', 'add', '--sender', 'SUCURSAL'])).toEqual({ sender: 'SUCURSAL', rcs: false });
    const added = await asSub(['chatapp-instances', 'add']);
    expect(await asSub(['chatapp-instances', 'disable', '--instance', added.instance_id])).toEqual({
      instance_id: added.instance_id,
      status: 'inactive',
    });
    expect(await asSub(['chatapp-instances', 'list'])).toEqual({
      instances: [{ instance_id: added.instance_id, status: 'inactive' }],
    });
    expect(await asSub(['wallets', 'add', '--name', 'Monedero'])).toMatchObject({ wallet_name: 'Monedero' });
    expect(await asSub(['loyalty', 'add', '--name', 'Café'])).toMatchObject({ loyalty_name: 'Café' });
    expect(await asSub(['otp', 'settings', '--countries', '52'])).toEqual({
      email: EMAIL,
      allowed_countries: ['52'],
      max_per_number_hour: null,
    });
    expect(await asSub(['webhooks', 'secret'])).toMatchObject({
      email: EMAIL,
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(await asSub(['events', 'list'])).toEqual({ email: EMAIL, events: [] });

    const db = h.ctx.db.kysely;
    const owners = async (
      table: 'senders' | 'chatapp_instances' | 'wallet_programs' | 'loyalty_programs' | 'otp_settings',
    ) => (await db.selectFrom(table).select('account_id').execute()).map((r) => r.account_id);
    for (const table of [
      'senders',
      'chatapp_instances',
      'wallet_programs',
      'loyalty_programs',
      'otp_settings',
    ] as const) {
      expect(await owners(table), table).toEqual([sub.id]);
    }
  });

  it('refuses an unknown parent, a sub-account as parent and an email the parent has no sub-account with', async () => {
    expect(
      (await mensajero(['accounts', 'credits', '--add', '1', '--email', EMAIL, '--parent', 'nobody@example.com']))
        .error,
    ).toMatch(/no top-level account with email nobody@example.com/);
    expect(
      (await mensajero(['accounts', 'credits', '--add', '1', '--email', EMAIL, '--parent', `${parent.id} ${EMAIL}`]))
        .error,
    ).toMatch(/no top-level account/);
    expect((await mensajero(['otp', 'settings', '--email', 'ghost@example.com', '--parent', parent.email])).error).toBe(
      'parent@example.com has no sub-account ghost@example.com',
    );
  });

  it('still accepts the stored form "<parent id> <email>" and names the top-level account without --parent', async () => {
    expect(await mensajero(['accounts', 'credits', '--add', '1', '--email', `${parent.id} ${EMAIL}`])).toEqual({
      email: EMAIL,
      credits: 8,
    });
    expect(await mensajero(['accounts', 'credits', '--add', '2', '--email', EMAIL])).toEqual({
      email: EMAIL,
      credits: 2,
    });
    expect((await accountRow(topLevel.id)).parent_id).toBeNull();
  });
});
