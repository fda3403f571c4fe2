import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { walletShops } from '../../../test/helpers/wallet.js';
import { walletCommands } from './cli.js';
import { listMovements } from './store.js';
import { runCommands } from '../../../test/helpers/cli.js';

describeEngines('wallet programs', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const { shop, enrolled, balanceOf } = walletShops(() => h);

  it('lists the programs of the account with wallets_get_01', async () => {
    const s = await shop();
    const r = await h.post('/wallet/get', {}, s.apikey);
    const item = { wallet_name: 'Monedero', wallet_key: s.key, wallet_app_client: '', wallet_plan_type: 'balance' };
    expect(r.body).toEqual({
      success: true,
      message: 'wallets',
      status: 200,
      code: 'wallets_get_01',
      result: [item],
      wallets: [item],
    });
    expect(s.key).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const other = await h.createAccount();
    expect((await h.post('/wallet/get', {}, other.apikey)).body.result).toEqual([]);
  });

  it('enrolls a contact with balance 0 and mirrors it in the list the program owns', async () => {
    const s = await shop();
    const r = await h.post(
      '/wallet/contact/add',
      { wallet_key: s.key, phone: '5512345678', customer_name: ' Carla Ruiz ', usertool_id: s.staffId },
      s.apikey,
    );
    expect(r.body).toEqual({
      success: true,
      message: 'contact_added',
      status: 200,
      code: 'wallet_contact_add_01',
      balance: 0,
    });
    const list = await h.ctx.db.kysely
      .selectFrom('contact_lists')
      .selectAll()
      .where('id', '=', s.wallet.list_id)
      .executeTakeFirstOrThrow();
    expect(list).toMatchObject({ account_id: s.account.id, linked_tool: 'wallet' });
    const contacts = await h.ctx.db.kysely.selectFrom('contacts').selectAll().where('list_id', '=', list.id).execute();
    expect(contacts.map((c) => [c.number, c.country_code, c.name])).toEqual([['525512345678', '52', 'Carla Ruiz']]);
    const got = await h.post('/wallet/contact/get', { wallet_key: s.key }, s.apikey);
    expect(got.body).toMatchObject({
      success: true,
      code: 'wallet_contact_get_01',
      result: [{ contact_name: 'Carla Ruiz', contact_phone: '5512345678', contact_balance: 0 }],
    });
    expect(got.body.result[0].contact_creation_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    // The list belongs to the program: the contacts endpoints refuse to change it.
    for (const path of ['/contacts/add', '/contacts/delete']) {
      expect(
        (await h.post(path, { list_key: list.list_key, number: '5512345678', name: 'Intrusa' }, s.apikey)).body.code,
        path,
      ).toBe('contact_17');
    }
    expect(
      await h.ctx.db.kysely.selectFrom('contacts').select('name').where('list_id', '=', list.id).execute(),
    ).toEqual([{ name: 'Carla Ruiz' }]);
  });

  it('contact/get filters by phone and validates the filter', async () => {
    const s = await enrolled('5511111111');
    await h.post(
      '/wallet/contact/add',
      { wallet_key: s.key, phone: '5522222222', customer_name: 'Dos', usertool_id: s.staffId },
      s.apikey,
    );
    expect(
      (await h.post('/wallet/contact/get', { wallet_key: s.key }, s.apikey)).body.result.map(
        (c: any) => c.contact_phone,
      ),
    ).toEqual(['5511111111', '5522222222']);
    expect(
      (await h.post('/wallet/contact/get', { wallet_key: s.key, phone: '5522222222' }, s.apikey)).body.result.map(
        (c: any) => c.contact_name,
      ),
    ).toEqual(['Dos']);
    expect(
      (await h.post('/wallet/contact/get', { wallet_key: s.key, phone: '5533333333' }, s.apikey)).body.result,
    ).toEqual([]);
    expect((await h.post('/wallet/contact/get', { wallet_key: s.key, phone: '12' }, s.apikey)).body.code).toBe(
      'wallet_04',
    );
    expect((await h.post('/wallet/contact/get', {}, s.apikey)).body.code).toBe('wallet_02');
    expect((await h.post('/wallet/contact/get', { wallet_key: 'zzz' }, s.apikey)).body.code).toBe('wallet_03');
  });

  it('balance/update adds and redeems in cents and records an operator movement without staff', async () => {
    const s = await enrolled();
    const up = await h.post(
      '/wallet/balance/update',
      { wallet_key: s.key, phone: s.phone, transaction_type: 0, transaction_amount: 12.5 },
      s.apikey,
    );
    expect(up.body).toEqual({
      success: true,
      message: 'balance_updated',
      status: 200,
      code: 'wallet_balance_01',
      balance: 12.5,
    });
    const down = await h.post(
      '/wallet/balance/update',
      { wallet_key: s.key, phone: s.phone, transaction_type: '1', transaction_amount: '2.25' },
      s.apikey,
    );
    expect(down.body.balance).toBe(10.25);
    const tenths = await h.post(
      '/wallet/balance/update',
      { wallet_key: s.key, phone: s.phone, transaction_type: 0, transaction_amount: 0.1 },
      s.apikey,
    );
    expect(tenths.body.balance).toBe(10.35);
    const over = await h.post(
      '/wallet/balance/update',
      { wallet_key: s.key, phone: s.phone, transaction_type: 1, transaction_amount: 10.36 },
      s.apikey,
    );
    expect(over.body).toMatchObject({ success: false, status: 400, code: 'wallet_12' });
    expect(await balanceOf(s, s.phone)).toBe(10.35);
    const member = await h.ctx.db.kysely
      .selectFrom('wallet_members')
      .selectAll()
      .where('wallet_id', '=', s.wallet.id)
      .executeTakeFirstOrThrow();
    expect(member.balance_cents).toBe(1035);
    const ledger = await listMovements(h.ctx.db.kysely, member.id);
    expect(ledger.map((m) => [m.kind, m.amount_cents, m.balance_after_cents, m.staff_user_id, m.source])).toEqual([
      ['add', 1250, 1250, null, 'balance_update'],
      ['redeem', 225, 1025, null, 'balance_update'],
      ['add', 10, 1035, null, 'balance_update'],
    ]);
  });

  it('sale adds (amount required) and redeems with the staff user in the ledger', async () => {
    const s = await enrolled();
    const sale = (body: Record<string, unknown>) =>
      h.post('/wallet/sale', { wallet_key: s.key, phone: s.phone, usertool_id: s.staffId, ...body }, s.apikey);
    expect((await sale({ transaction_type: 0 })).body).toMatchObject({ status: 400, code: 'wallet_09' });
    expect((await sale({ transaction_type: 0, transaction_amount: 100 })).body).toEqual({
      success: true,
      message: 'sale_registered',
      status: 200,
      code: 'wallet_sale_01',
      balance: 100,
    });
    expect((await sale({ transaction_type: 1, transaction_amount: 30.5 })).body.balance).toBe(69.5);
    // A redeem without an amount takes the whole balance.
    expect((await sale({ transaction_type: 1 })).body).toMatchObject({ code: 'wallet_sale_01', balance: 0 });
    expect((await sale({ transaction_type: 1 })).body).toMatchObject({ status: 400, code: 'wallet_12' });
    expect((await sale({ transaction_type: 1, transaction_amount: 1 })).body.code).toBe('wallet_12');
    expect((await sale({ transaction_type: 0, transaction_amount: 1, usertool_id: undefined })).body.code).toBe(
      'wallet_06',
    );
    expect((await sale({ transaction_type: 0, transaction_amount: 1, phone: '5500000001' })).body.code).toBe(
      'wallet_10',
    );
    const member = await h.ctx.db.kysely
      .selectFrom('wallet_members')
      .selectAll()
      .where('wallet_id', '=', s.wallet.id)
      .executeTakeFirstOrThrow();
    const ledger = await listMovements(h.ctx.db.kysely, member.id);
    expect(ledger.map((m) => [m.kind, m.amount_cents, m.balance_after_cents, m.staff_user_id, m.source])).toEqual([
      ['add', 10000, 10000, s.staffId, 'sale'],
      ['redeem', 3050, 6950, s.staffId, 'sale'],
      ['redeem', 6950, 0, s.staffId, 'sale'],
    ]);
  });

  it('CLI wallets add prints wallet_key and wallet_name and creates the program', async () => {
    const a = await h.createAccount();
    const out = await runCli(['wallets', 'add', '--email', a.email, '--name', 'Monedero VIP', '--json']);
    expect(out).toEqual({ wallet_key: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/), wallet_name: 'Monedero VIP' });
    expect((await h.post('/wallet/get', {}, a.apikey)).body.result).toEqual([
      { wallet_name: 'Monedero VIP', wallet_key: out.wallet_key, wallet_app_client: '', wallet_plan_type: 'balance' },
    ]);
    expect(await runCli(['wallets', 'add', '--email', 'nobody@example.com', '--name', 'X', '--json'])).toEqual({
      error: expect.stringMatching(/no account/),
    });
    expect(await runCli(['wallets', 'add', '--email', a.email, '--name', '  ', '--json'])).toEqual({
      error: expect.stringMatching(/--name/),
    });
  });

  const runCli = (args: string[]) => runCommands(h.ctx, [walletCommands], args);
});
