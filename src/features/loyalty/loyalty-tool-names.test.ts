import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { loyaltyShops } from '../../../test/helpers/loyalty.js';

/** The official assistant-tool server reads loyalty_cards[] and contacts[] (docs/api/compatibility.md); the interface names result[]. */
describeEngines('loyalty listings under the spec name and the tool server names', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const { enrolled } = loyaltyShops(() => h);

  it('/loyalty/get answers the programs as result[] and loyalty_cards[]', async () => {
    const s = await enrolled(6);
    const item = {
      loyalty_name: 'Café',
      loyalty_key: s.key,
      loyalty_app_client: '',
      loyalty_plan_type: 'stamps',
      loyalty_stamps_required: 6,
    };
    expect((await h.post('/loyalty/get', { source: 'mcp' }, s.apikey)).body).toEqual({
      success: true,
      message: 'loyalty_programs',
      status: 200,
      code: 'loyalty_get_01',
      result: [item],
      loyalty_cards: [item],
    });
    const none = (await h.post('/loyalty/get', {}, (await h.createAccount()).apikey)).body;
    expect([none.result, none.loyalty_cards]).toEqual([[], []]);
  });

  it('/loyalty/contact/get answers the contacts as result[] and contacts[], filtered or not', async () => {
    const s = await enrolled(6, '5512345678');
    const contact = {
      contact_name: 'Carla',
      contact_phone: '5512345678',
      contact_birthdate: '',
      contact_total_loyalty_completes: 0,
      contact_current_redeem: 0,
      contact_current_stamps: 0,
    };
    expect((await h.post('/loyalty/contact/get', { loyalty_key: s.key, phone: s.phone }, s.apikey)).body).toEqual({
      success: true,
      message: 'loyalty_contacts',
      status: 200,
      code: 'loyalty_contact_get_01',
      result: [contact],
      contacts: [contact],
    });
    const missing = (await h.post('/loyalty/contact/get', { loyalty_key: s.key, phone: '5599999999' }, s.apikey)).body;
    expect([missing.result, missing.contacts]).toEqual([[], []]);
  });

  it('documents both names in /openapi.json', async () => {
    const doc = (await h.get('/openapi.json')).body;
    const props = (path: string) =>
      Object.keys(doc.paths[path].post.responses['200'].content['application/json'].schema.properties);
    expect(props('/loyalty/get')).toEqual(expect.arrayContaining(['result', 'loyalty_cards']));
    expect(props('/loyalty/contact/get')).toEqual(expect.arrayContaining(['result', 'contacts']));
  });
});
