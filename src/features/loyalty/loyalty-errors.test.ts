import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { loyaltyShops } from '../../../test/helpers/loyalty.js';

describeEngines('loyalty programs', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const { addStaff, enrolled, cardOf, stamp, redeem } = loyaltyShops(() => h);

  let shared: Awaited<ReturnType<typeof enrolled>> | undefined;
  const sharedShop = async () => (shared ??= await enrolled(3, '5544443333'));

  it.each([
    [{ loyalty_key: undefined }, 'loyalty_02'],
    [{ loyalty_key: 'nope' }, 'loyalty_03'],
    [{ loyalty_key: { $ne: null } }, 'loyalty_02'],
    [{ phone: undefined }, 'loyalty_04'],
    [{ phone: '12345678901' }, 'loyalty_04'],
    [{ customer_name: undefined }, 'loyalty_05'],
    [{ customer_name: '\u0007bell' }, 'loyalty_05'],
    [{ usertool_id: undefined }, 'loyalty_06'],
    [{ usertool_id: -3 }, 'loyalty_06'],
    [{ usertool_id: 1.5 }, 'loyalty_06'],
    [{ usertool_id: 424242 }, 'loyalty_07'],
  ])('contact/add refuses %j with %s', async (over, code) => {
    const s = await sharedShop();
    const r = await h.post(
      '/loyalty/contact/add',
      { loyalty_key: s.key, phone: '5512345679', customer_name: 'Carla', usertool_id: s.staffId, ...over },
      s.apikey,
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code });
  });

  it.each([
    [{ loyalty_key: undefined }, 'loyalty_02'],
    [{ loyalty_key: 'nope' }, 'loyalty_03'],
    [{ phone: 'abc' }, 'loyalty_04'],
    [{ phone: '5599999999' }, 'loyalty_10'],
    [{ usertool_id: undefined }, 'loyalty_06'],
    [{ usertool_id: 424242 }, 'loyalty_07'],
  ])('sale and redeem refuse %j with %s', async (over, code) => {
    const s = await sharedShop();
    for (const path of ['/loyalty/sale', '/loyalty/redeem']) {
      const r = await h.post(path, { loyalty_key: s.key, phone: s.phone, usertool_id: s.staffId, ...over }, s.apikey);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, code });
    }
    expect(await cardOf(s)).toMatchObject({ contact_current_stamps: 0, contact_total_loyalty_completes: 0 });
  });

  it('refuses sales and redeems by a disabled staff user', async () => {
    const s = await enrolled(1);
    await stamp(s);
    const number = (await h.post('/toolusers/get', {}, s.apikey)).body.result[0].usertool_number;
    await h.post('/employee/disable', { number }, s.apikey);
    expect((await stamp(s)).body.code).toBe('loyalty_07');
    expect((await redeem(s)).body.code).toBe('loyalty_07');
    expect(await cardOf(s)).toMatchObject({ contact_total_loyalty_completes: 1, contact_current_redeem: 1 });
  });

  it("treats another account's program key as absent and refuses its staff", async () => {
    const s = await enrolled(1);
    const intruder = await h.createAccount();
    const intruderStaff = await addStaff(intruder);
    const calls: Array<[string, Record<string, unknown>]> = [
      [
        '/loyalty/contact/add',
        { loyalty_key: s.key, phone: '5599990000', customer_name: 'X', usertool_id: intruderStaff },
      ],
      ['/loyalty/contact/get', { loyalty_key: s.key }],
      ['/loyalty/sale', { loyalty_key: s.key, phone: s.phone, usertool_id: intruderStaff }],
      ['/loyalty/redeem', { loyalty_key: s.key, phone: s.phone, usertool_id: intruderStaff }],
    ];
    for (const [path, body] of calls)
      expect((await h.post(path, body, intruder.apikey)).body).toMatchObject({ status: 400, code: 'loyalty_03' });
    // The owner's key with the intruder's staff user is refused too.
    expect(
      (await h.post('/loyalty/sale', { loyalty_key: s.key, phone: s.phone, usertool_id: intruderStaff }, s.apikey)).body
        .code,
    ).toBe('loyalty_07');
    expect(await cardOf(s)).toMatchObject({ contact_current_stamps: 0, contact_total_loyalty_completes: 0 });
  });

  it('never answers 500 to hostile bodies', async () => {
    const s = await sharedShop();
    const bodies: unknown[] = [
      [],
      { loyalty_key: ['a'] },
      { loyalty_key: s.key, phone: [5544443333], usertool_id: '1e400' },
      { loyalty_key: 'k'.repeat(100_000) },
    ];
    for (const path of ['/loyalty/contact/add', '/loyalty/contact/get', '/loyalty/sale', '/loyalty/redeem']) {
      for (const body of bodies) {
        const r = await h.post(path, body, s.apikey);
        expect(r.status).toBe(400);
      }
      const form = await h.request('POST', path, {
        apikey: s.apikey,
        form: { loyalty_key: s.key, phone: '5544443333', usertool_id: String(s.staffId), customer_name: 'F' },
      });
      expect(form.status).toBeLessThan(500);
    }
    expect((await h.post('/loyalty/get', {})).status).toBe(401);
  });
});
