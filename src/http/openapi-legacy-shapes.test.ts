import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.js';
import { requestValidator, type RequestShape } from '../../test/helpers/openapi-requests.js';

const phone = '5512345678';
const otpStart = {
  phone_number: phone,
  country_code: '52',
  company: 'Acme',
  code_length: '4',
  code_type: 'numeric',
  expiration_date: '2030-01-01 10:00:00',
  voice: '0',
  whatsapp: '0',
  template: 'a',
  sandbox: '0',
};

/**
 * Every request shape of docs/api/compatibility.md, as integrations send it: the
 * service accepts each one, so a client that validates its requests against
 * /openapi.json (Ajv) must find each one allowed.
 */
const SHAPES: Array<[string, string, string, RequestShape]> = [
  [
    'form body, numbers with ", "',
    'post',
    '/sms/send',
    { form: { numbers: `${phone}, 5587654321`, message: 'Hola', country_code: '52' } },
  ],
  [
    'country_code as a JSON number',
    'post',
    '/sms/send',
    { json: { numbers: phone, message: 'Hola', country_code: 52 } },
  ],
  ['country_code "+52"', 'post', '/sms/send', { json: { numbers: phone, message: 'Hola', country_code: '+52' } }],
  ['country_code "052"', 'post', '/sms/send', { json: { numbers: phone, message: 'Hola', country_code: '052' } }],
  ['showCampaignId "true"', 'post', '/sms/send', { json: { numbers: phone, message: 'Hola', showCampaignId: 'true' } }],
  ['showCampaignId "1"', 'post', '/sms/send', { json: { numbers: phone, message: 'Hola', showCampaignId: '1' } }],
  ['showCampaignId true', 'post', '/sms/send', { json: { numbers: phone, message: 'Hola', showCampaignId: true } }],
  [
    'flags "1", 1 and true',
    'post',
    '/sms/send',
    { json: { numbers: phone, message: 'Hola', sandbox: true, flash: 1, shorten_url: '0' } },
  ],
  ['an extra field (source: mcp)', 'post', '/sms/send', { json: { numbers: phone, message: 'Hola', source: 'mcp' } }],
  [
    'GET with query parameters',
    'get',
    '/sms/send',
    { query: { numbers: phone, message: 'Hola', country_code: '52', source: 'mcp' } },
  ],
  [
    'showCampaignId in the query',
    'post',
    '/voice/send',
    { json: { numbers: phone, country_code: 52, template: 'a', sandbox: 1, showCampaignId: 'true' } },
  ],
  [
    'chat-app, JSON',
    'post',
    '/whatsapp/send',
    { json: { instance_id: 'i1', number: phone, message: 'Hola', type: 'text', country_code: 52 } },
  ],
  [
    'chat-app, form',
    'post',
    '/whatsapp/send',
    {
      form: {
        instance_id: 'i1',
        number: phone,
        message: 'https://x.test/a.png',
        type: 'image',
        country_code: '52',
        caption: 'c',
        date: '2030-01-01 10:00:00',
      },
    },
  ],
  [
    'chat-app, GET',
    'get',
    '/whatsapp/send',
    { query: { instance_id: 'i1', number: phone, message: 'Hola', country_code: '52' } },
  ],
  [
    'chat-app path of the spec',
    'post',
    '/chatapp/send',
    { json: { instance_id: 'i1', number: phone, message: 'Hola', country_code: 52 } },
  ],
  [
    'OTP: numbers and booleans',
    'post',
    '/v2/otp',
    {
      json: { phone_number: phone, country_code: 52, company: 'Acme', code_length: 6, code_rotate: true, code_show: 1 },
    },
  ],
  [
    'OTP: channel whatsapp and sandbox "1"',
    'post',
    '/v2/otp',
    { json: { phone_number: phone, country_code: '52', channel: 'whatsapp', sandbox: '1', source: 'mcp' } },
  ],
  [
    'OTP: sandbox true, code_rotate "true"',
    'post',
    '/v2/otp',
    { json: { phone_number: phone, country_code: 52, company: 'Acme', sandbox: true, code_rotate: 'true' } },
  ],
  [
    'OTP: form body',
    'post',
    '/v2/otp',
    {
      form: {
        phone_number: phone,
        country_code: '52',
        company: 'Acme',
        code_length: '6',
        code_rotate: '1',
        sandbox: 'true',
      },
    },
  ],
  [
    'OTP verify, country_code a number',
    'post',
    '/v2/otp/verify',
    { json: { phone_number: phone, country_code: 52, code: '123456' } },
  ],
  ['OTP status', 'get', '/v2/otp/status', { query: { phone_number: phone, country_code: '52' } }],
  ['OTP delete', 'delete', '/v2/otp', { json: { phone_number: phone, country_code: 52 } }],
  ['previous OTP API start, form', 'post', '/protected/{format}/phones/verification/start', { form: otpStart }],
  [
    'previous OTP API start, JSON numbers',
    'post',
    '/protected/{format}/phones/verification/start',
    { json: { ...otpStart, country_code: 52, code_length: 4, whatsapp: 1, sandbox: 1 } },
  ],
  [
    'previous OTP API check, no country_code',
    'post',
    '/protected/{format}/phones/verification/check',
    { form: { phone_number: phone, verification_code: '1234' } },
  ],
  [
    'previous OTP API check, GET',
    'get',
    '/protected/{format}/phones/verification/check',
    { query: { phone_number: phone, verification_code: '1234' } },
  ],
  [
    'previous OTP API resend',
    'post',
    '/protected/{format}/phones/verification/resend',
    {
      form: {
        phone_number: phone,
        country_code: '52',
        company: 'Acme',
        reset_code: '1',
        code_type: 'alphanumeric',
        voice: '1',
        whatsapp: '0',
      },
    },
  ],
  [
    'previous OTP API reset',
    'post',
    '/protected/{format}/phones/verification/reset',
    { json: { phone_number: phone, country_code: 52, reset_code: 0, code_type: 'numeric' } },
  ],
  ['token login, form', 'post', '/auth', { form: { apikey: 'k' } }],
  ['token login, JSON', 'post', '/auth', { json: { apikey: 'k' } }],
  ['list search', 'get', '/contactlist/find', { query: { query: 'clientes', source: 'mcp' } }],
  ['list contacts by list_key', 'post', '/agendas/get_contacts', { json: { list_key: '17' } }],
  [
    'contact add, list id and country_code numbers',
    'post',
    '/contacts/add',
    { json: { list_key: 17, number: phone, country_code: 52, find_country_code: '0' } },
  ],
  [
    'campaigns, strings',
    'post',
    '/campaigns',
    { form: { start_date: '2026-01-01', end_date: '2026-01-31 23:59:59', sandbox: '1', limit: '100' } },
  ],
  ['campaigns, numbers', 'post', '/campaigns', { json: { end_date: '2026-01-31', sandbox: 0, limit: 1 } }],
  ['campaigns, GET', 'get', '/campaigns', { query: { start_date: '2026-01-01', limit: '50' } }],
  ['campaign details, campaign_id a number', 'post', '/reports/details', { json: { campaign_id: 2, sandbox: 1 } }],
  ['campaign details, form', 'post', '/reports/details', { form: { campaign_id: '2', sandbox: '0' } }],
  [
    'report, sandbox "1"',
    'post',
    '/reports/generate',
    { form: { start_date: '2026-01-01', end_date: '2026-01-31', sandbox: '1' } },
  ],
  ['wallet listing with source', 'post', '/wallet/get', { json: { source: 'mcp' } }],
  ['wallet contacts', 'post', '/wallet/contact/get', { json: { wallet_key: 'w', phone } }],
  [
    'wallet balance, transaction_type "1"',
    'post',
    '/wallet/balance/update',
    { json: { wallet_key: 'w', phone, transaction_type: '1', transaction_amount: '10.5' } },
  ],
  [
    'wallet balance, form',
    'post',
    '/wallet/balance/update',
    { form: { wallet_key: 'w', phone, transaction_type: '0', transaction_amount: '10' } },
  ],
  [
    'wallet sale, numbers',
    'post',
    '/wallet/sale',
    { json: { wallet_key: 'w', phone, transaction_type: 1, usertool_id: 3 } },
  ],
  [
    'wallet contact add, usertool_id text',
    'post',
    '/wallet/contact/add',
    { form: { wallet_key: 'w', phone, customer_name: 'Ana', usertool_id: '3' } },
  ],
  ['loyalty listing', 'post', '/loyalty/get', { json: { source: 'mcp' } }],
  ['loyalty contacts', 'post', '/loyalty/contact/get', { form: { loyalty_key: 'l', phone } }],
  ['loyalty sale, usertool_id text', 'post', '/loyalty/sale', { form: { loyalty_key: 'l', phone, usertool_id: '3' } }],
  [
    'payment request, country_code a number',
    'post',
    '/paymentrequest/send',
    { json: { number: phone, country_code: 52, template: 't', message: 'm', amount: '150' } },
  ],
  [
    'sub-account credits, numbers as text',
    'post',
    '/manager/subaccount/credits/manage',
    { form: { email: 'a@b.mx', type: '1', credits: '10' } },
  ],
  ['webhook status "1"', 'post', '/webhook/status', { json: { status: 1 } }],
];

describe('/openapi.json allows every request shape integrations send (docs/api/compatibility.md)', () => {
  let h: Harness;
  let check: ReturnType<typeof requestValidator>;
  beforeAll(async () => {
    h = await startHarness('sqlite', { worker: false });
    check = requestValidator((await h.get('/openapi.json')).body);
  });
  afterAll(() => h.close());

  it.each(SHAPES)('%s: %s %s', (_name, method, path, shape) => {
    expect(check(method, path, shape)).toEqual([]);
  });

  it('still refuses what the service refuses: the validator is not blind', () => {
    expect(check('post', '/sms/send', { json: { numbers: [phone], message: 'Hola' } })).not.toEqual([]);
    expect(check('post', '/sms/send', { json: { message: 'Hola' } })).not.toEqual([]);
    expect(check('post', '/v2/otp', { json: { phone_number: phone, country_code: { code: 52 } } })).not.toEqual([]);
    expect(check('post', '/v2/otp', { json: { phone_number: phone, country_code: 52, channel: 'fax' } })).not.toEqual(
      [],
    );
  });
});
