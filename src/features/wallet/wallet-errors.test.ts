import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { walletShops } from '../../../test/helpers/wallet.js';
import { MAX_BALANCE_CENTS } from './store.js';

describeEngines('wallet programs', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const { shop, addStaff, enrolled, balanceOf } = walletShops(() => h);

  /** One enrolled shop shared by the refusal tables (a refusal changes nothing). */
  let shared: Awaited<ReturnType<typeof enrolled>> | undefined;
  const sharedShop = async () => (shared ??= await enrolled('5544443333'));

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
});
