import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';
import { createWallet } from './service.js';
import { walletCommands } from './cli.js';
import { listMovements, MAX_BALANCE_CENTS } from './store.js';
import { runCommands } from '../../../test/helpers/cli.js';

let staffCounter = 0;

describeEngines('wallet programs', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  /** An account with one active staff user and one wallet. */
  async function shop() {
    const account = await h.createAccount();
    const staffId = await addStaff(account);
    const wallet = await createWallet(h.ctx, account.id, 'Monedero');
    return { account, apikey: account.apikey, staffId, key: wallet.wallet_key, wallet };
  }

  async function addStaff(account: TestAccount): Promise<number> {
    const n = ++staffCounter;
    const r = await h.post(
      '/employee/add',
      {
        type: 'cajero',
        employee_name: `Cajero ${n}`,
        business_name: 'Centro',
        number: String(5530000000 + n),
        password: `clave-${n}`,
      },
      account.apikey,
    );
    expect(r.body.code).toBe('toolusers_01');
    return r.body.collaboratorId;
  }

  async function enrolled(phone = '5512345678') {
    const s = await shop();
    const r = await h.post(
      '/wallet/contact/add',
      { wallet_key: s.key, phone, customer_name: 'Carla', usertool_id: s.staffId },
      s.apikey,
    );
    expect(r.body.code).toBe('wallet_contact_add_01');
    return { ...s, phone };
  }

  /** One enrolled shop shared by the refusal tables (a refusal changes nothing). */
  let shared: Awaited<ReturnType<typeof enrolled>> | undefined;
  const sharedShop = async () => (shared ??= await enrolled('5544443333'));

  const balanceOf = async (s: { apikey: string; key: string }, phone: string) =>
    (await h.post('/wallet/contact/get', { wallet_key: s.key, phone }, s.apikey)).body.result[0]
      .contact_balance as number;

  it('lists the programs of the account with wallets_get_01', async () => {
    const s = await shop();
    const r = await h.post('/wallet/get', {}, s.apikey);
    expect(r.body).toEqual({
      success: true,
      message: 'wallets',
      status: 200,
      code: 'wallets_get_01',
      result: [{ wallet_name: 'Monedero', wallet_key: s.key, wallet_app_client: '', wallet_plan_type: 'balance' }],
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

  it('refuses a phone already enrolled, also under parallel requests', async () => {
    const s = await enrolled();
    const again = await h.post(
      '/wallet/contact/add',
      { wallet_key: s.key, phone: s.phone, customer_name: 'Otra', usertool_id: s.staffId },
      s.apikey,
    );
    expect(again.body).toMatchObject({ success: false, status: 400, code: 'wallet_11' });
    const replies = await Promise.all(
      Array.from({ length: 5 }, () =>
        h.post(
          '/wallet/contact/add',
          { wallet_key: s.key, phone: '5587654321', customer_name: 'Par', usertool_id: s.staffId },
          s.apikey,
        ),
      ),
    );
    expect(replies.filter((r) => r.body.code === 'wallet_contact_add_01')).toHaveLength(1);
    expect(replies.filter((r) => r.body.code === 'wallet_11')).toHaveLength(4);
    expect((await h.post('/wallet/contact/get', { wallet_key: s.key }, s.apikey)).body.result).toHaveLength(2);
    expect(
      await h.ctx.db.kysely.selectFrom('contacts').select('number').where('list_id', '=', s.wallet.list_id).execute(),
    ).toHaveLength(2);
  });

  it.each([
    [{ wallet_key: undefined }, 'wallet_02'],
    [{ wallet_key: '' }, 'wallet_02'],
    [{ wallet_key: 'no-such-wallet' }, 'wallet_03'],
    [{ wallet_key: "' OR 1=1 --" }, 'wallet_03'],
    [{ phone: undefined }, 'wallet_04'],
    [{ phone: '551234567' }, 'wallet_04'],
    [{ phone: '+525512345678' }, 'wallet_04'],
    [{ customer_name: undefined }, 'wallet_05'],
    [{ customer_name: 'n'.repeat(101) }, 'wallet_05'],
    [{ usertool_id: undefined }, 'wallet_06'],
    [{ usertool_id: 'abc' }, 'wallet_06'],
    [{ usertool_id: 0 }, 'wallet_06'],
    [{ usertool_id: 1e300 }, 'wallet_06'],
    [{ usertool_id: 999_999 }, 'wallet_07'],
  ])('contact/add refuses %j with %s', async (over, code) => {
    const s = await sharedShop();
    const r = await h.post(
      '/wallet/contact/add',
      { wallet_key: s.key, phone: '5512345679', customer_name: 'Carla', usertool_id: s.staffId, ...over },
      s.apikey,
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, status: 400, code });
  });

  it('requires an ACTIVE staff user of the same account', async () => {
    const s = await shop();
    const other = await h.createAccount();
    const foreignStaff = await addStaff(other);
    const add = (usertool_id: number) =>
      h.post(
        '/wallet/contact/add',
        { wallet_key: s.key, phone: '5512345678', customer_name: 'Carla', usertool_id },
        s.apikey,
      );
    expect((await add(foreignStaff)).body.code).toBe('wallet_07');
    const number = (await h.post('/toolusers/get', {}, s.apikey)).body.result[0].usertool_number;
    await h.post('/employee/disable', { number }, s.apikey);
    expect((await add(s.staffId)).body.code).toBe('wallet_07');
    expect((await h.post('/wallet/contact/get', { wallet_key: s.key }, s.apikey)).body.result).toEqual([]);
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

  it.each([
    [{ transaction_amount: undefined }, 'wallet_09'],
    [{ transaction_amount: 0 }, 'wallet_09'],
    [{ transaction_amount: -5 }, 'wallet_09'],
    [{ transaction_amount: 1.005 }, 'wallet_09'],
    [{ transaction_amount: 'diez' }, 'wallet_09'],
    [{ transaction_amount: 1e300 }, 'wallet_09'],
    [{ transaction_amount: 1_000_000.01 }, 'wallet_09'],
    [{ transaction_amount: [5] }, 'wallet_09'],
    [{ transaction_type: undefined }, 'wallet_08'],
    [{ transaction_type: 2 }, 'wallet_08'],
    [{ transaction_type: 'add' }, 'wallet_08'],
    [{ phone: 'abc' }, 'wallet_04'],
    [{ phone: '5599999999' }, 'wallet_10'],
    [{ wallet_key: 'nope' }, 'wallet_03'],
  ])('balance/update refuses %j with %s', async (over, code) => {
    const s = await sharedShop();
    const r = await h.post(
      '/wallet/balance/update',
      { wallet_key: s.key, phone: s.phone, transaction_type: 0, transaction_amount: 5, ...over },
      s.apikey,
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code });
    expect(await balanceOf(s, s.phone)).toBe(0);
  });

  it('never lets a balance pass its maximum', async () => {
    const s = await enrolled();
    const max = MAX_BALANCE_CENTS / 100;
    for (let i = 0; i < max / 1_000_000; i++) {
      expect(
        (
          await h.post(
            '/wallet/balance/update',
            { wallet_key: s.key, phone: s.phone, transaction_type: 0, transaction_amount: 1_000_000 },
            s.apikey,
          )
        ).body.code,
      ).toBe('wallet_balance_01');
    }
    expect(
      (
        await h.post(
          '/wallet/balance/update',
          { wallet_key: s.key, phone: s.phone, transaction_type: 0, transaction_amount: 0.01 },
          s.apikey,
        )
      ).body.code,
    ).toBe('wallet_13');
    expect(await balanceOf(s, s.phone)).toBe(max);
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

  it('refuses a sale by a disabled staff user', async () => {
    const s = await enrolled();
    const number = (await h.post('/toolusers/get', {}, s.apikey)).body.result[0].usertool_number;
    await h.post('/employee/disable', { number }, s.apikey);
    const r = await h.post(
      '/wallet/sale',
      { wallet_key: s.key, phone: s.phone, usertool_id: s.staffId, transaction_type: 0, transaction_amount: 5 },
      s.apikey,
    );
    expect(r.body).toMatchObject({ status: 400, code: 'wallet_07' });
    expect(await balanceOf(s, s.phone)).toBe(0);
  });

  it('never takes a balance below zero under parallel redeems', async () => {
    const s = await enrolled();
    await h.post(
      '/wallet/balance/update',
      { wallet_key: s.key, phone: s.phone, transaction_type: 0, transaction_amount: 10 },
      s.apikey,
    );
    const replies = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        i % 2 === 0
          ? h.post(
              '/wallet/sale',
              { wallet_key: s.key, phone: s.phone, usertool_id: s.staffId, transaction_type: 1, transaction_amount: 1 },
              s.apikey,
            )
          : h.post(
              '/wallet/balance/update',
              { wallet_key: s.key, phone: s.phone, transaction_type: 1, transaction_amount: 1 },
              s.apikey,
            ),
      ),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(10);
    expect(replies.filter((r) => r.body.code === 'wallet_12')).toHaveLength(15);
    expect(await balanceOf(s, s.phone)).toBe(0);
    const member = await h.ctx.db.kysely
      .selectFrom('wallet_members')
      .selectAll()
      .where('wallet_id', '=', s.wallet.id)
      .executeTakeFirstOrThrow();
    const ledger = await listMovements(h.ctx.db.kysely, member.id);
    expect(ledger.filter((m) => m.kind === 'redeem')).toHaveLength(10);
    const net = ledger.reduce((sum, m) => sum + (m.kind === 'add' ? m.amount_cents : -m.amount_cents), 0);
    expect(net).toBe(0);
    expect(ledger.every((m) => m.balance_after_cents >= 0)).toBe(true);
  });

  it('lets one of parallel whole-balance redeems through', async () => {
    const s = await enrolled();
    await h.post(
      '/wallet/balance/update',
      { wallet_key: s.key, phone: s.phone, transaction_type: 0, transaction_amount: 50 },
      s.apikey,
    );
    const replies = await Promise.all(
      Array.from({ length: 6 }, () =>
        h.post(
          '/wallet/sale',
          { wallet_key: s.key, phone: s.phone, usertool_id: s.staffId, transaction_type: 1 },
          s.apikey,
        ),
      ),
    );
    expect(replies.filter((r) => r.body.code === 'wallet_sale_01')).toHaveLength(1);
    expect(replies.filter((r) => r.body.code === 'wallet_12')).toHaveLength(5);
    expect(await balanceOf(s, s.phone)).toBe(0);
  });

  it("treats another account's wallet key as absent on every endpoint", async () => {
    const s = await enrolled();
    await h.post(
      '/wallet/balance/update',
      { wallet_key: s.key, phone: s.phone, transaction_type: 0, transaction_amount: 10 },
      s.apikey,
    );
    const intruder = await h.createAccount();
    const intruderStaff = await addStaff(intruder);
    const calls: Array<[string, Record<string, unknown>]> = [
      [
        '/wallet/contact/add',
        { wallet_key: s.key, phone: '5599990000', customer_name: 'X', usertool_id: intruderStaff },
      ],
      ['/wallet/contact/get', { wallet_key: s.key }],
      ['/wallet/balance/update', { wallet_key: s.key, phone: s.phone, transaction_type: 1, transaction_amount: 10 }],
      ['/wallet/sale', { wallet_key: s.key, phone: s.phone, usertool_id: intruderStaff, transaction_type: 1 }],
    ];
    for (const [path, body] of calls)
      expect((await h.post(path, body, intruder.apikey)).body).toMatchObject({ status: 400, code: 'wallet_03' });
    expect(await balanceOf(s, s.phone)).toBe(10);
    expect((await h.post('/wallet/contact/get', { wallet_key: s.key }, s.apikey)).body.result).toHaveLength(1);
  });

  it('never answers 500 to hostile bodies', async () => {
    const s = await enrolled();
    const bodies: unknown[] = [
      [],
      'x',
      { wallet_key: { a: 1 } },
      { wallet_key: s.key, phone: { toString: 1 } },
      { wallet_key: 'k'.repeat(100_000) },
    ];
    for (const path of ['/wallet/contact/add', '/wallet/contact/get', '/wallet/balance/update', '/wallet/sale']) {
      for (const body of bodies) {
        const r = await h.post(path, body, s.apikey);
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
      }
      const form = await h.request('POST', path, {
        apikey: s.apikey,
        form: {
          wallet_key: s.key,
          phone: s.phone,
          transaction_type: '0',
          transaction_amount: '1',
          usertool_id: String(s.staffId),
          customer_name: 'F',
        },
      });
      expect(form.status).toBeLessThan(500);
    }
    const anonymous = await h.post('/wallet/get', {});
    expect(anonymous.status).toBe(401);
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
