import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { walletShops } from '../../../test/helpers/wallet.js';

/** The official assistant-tool server reads wallets[] and contacts[] (docs/api/compatibility.md); the interface names result[]. */
describeEngines('wallet listings under the spec name and the tool server names', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const { shop, enrolled } = walletShops(() => h);

  it('/wallet/get answers the programs as result[] and wallets[]', async () => {
    const s = await shop();
    const item = { wallet_name: 'Monedero', wallet_key: s.key, wallet_app_client: '', wallet_plan_type: 'balance' };
    expect((await h.post('/wallet/get', { source: 'mcp' }, s.apikey)).body).toEqual({
      success: true,
      message: 'wallets',
      status: 200,
      code: 'wallets_get_01',
      result: [item],
      wallets: [item],
    });
    const none = (await h.post('/wallet/get', {}, (await h.createAccount()).apikey)).body;
    expect([none.result, none.wallets]).toEqual([[], []]);
  });

  it('/wallet/contact/get answers the contacts as result[] and contacts[], filtered or not', async () => {
    const s = await enrolled('5511111111');
    const all = (await h.post('/wallet/contact/get', { wallet_key: s.key }, s.apikey)).body;
    const contact = {
      contact_name: 'Carla',
      contact_phone: '5511111111',
      contact_balance: 0,
      contact_creation_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    };
    expect(all).toEqual({
      success: true,
      message: 'wallet_contacts',
      status: 200,
      code: 'wallet_contact_get_01',
      result: [contact],
      contacts: [contact],
    });
    const missing = (await h.post('/wallet/contact/get', { wallet_key: s.key, phone: '5599999999' }, s.apikey)).body;
    expect([missing.result, missing.contacts]).toEqual([[], []]);
  });

  it('keeps the spec for transaction_type: "1" (the tool server\'s "add") redeems, 0 adds', async () => {
    const s = await enrolled('5511111111');
    const move = (transaction_type: unknown, transaction_amount: unknown) =>
      h.post(
        '/wallet/balance/update',
        { wallet_key: s.key, phone: s.phone, transaction_type, transaction_amount },
        s.apikey,
      );
    expect((await move('1', '5')).body.code).toBe('wallet_12');
    expect((await move(0, 20)).body.balance).toBe(20);
    expect((await move('1', '5')).body.balance).toBe(15);
  });

  it('documents both names in /openapi.json', async () => {
    const doc = (await h.get('/openapi.json')).body;
    const props = (path: string) =>
      Object.keys(doc.paths[path].post.responses['200'].content['application/json'].schema.properties);
    expect(props('/wallet/get')).toEqual(expect.arrayContaining(['result', 'wallets']));
    expect(props('/wallet/contact/get')).toEqual(expect.arrayContaining(['result', 'contacts']));
  });
});
