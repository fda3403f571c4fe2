import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.js';

/** Every endpoint of the interface document, as method and path. */
const SPEC_ENDPOINTS = [
  'post /contacts/add',
  'post /contacts/update',
  'post /contacts/delete',
  'post /contacts/duplicate',
  'post /contacts/polling/{action}',
  'post /agendas/add',
  'post /agendas/get',
  'post /agendas/change_name',
  'post /agendas/get_contacts',
  'post /agendas/delete',
  'get /contactlist/find',
  'post /v2/otp',
  'post /v2/otp/verify',
  'get /v2/otp/status',
  'delete /v2/otp',
  'post /sms/send',
  'get /sms/send',
  'post /chatapp/send',
  'get /chatapp/send',
  'post /voice/send',
  'post /credits/consult',
  'get /credits/consult',
  'post /reports/generate',
  'post /reports/details',
  'post /manager/subaccount/add',
  'post /manager/subaccount/archive',
  'post /manager/subaccount/get_apikey',
  'post /manager/subaccount/credits/manage',
  'post /wallet/get',
  'post /wallet/contact/add',
  'post /wallet/contact/get',
  'post /wallet/balance/update',
  'post /wallet/sale',
  'post /loyalty/get',
  'post /loyalty/contact/add',
  'post /loyalty/contact/get',
  'post /loyalty/sale',
  'post /toolusers/get',
  'post /employee/add',
  'post /employee/disable',
  'post /paymentrequest/send',
  'post /webhook/get',
  'post /webhook/add',
  'post /webhook/status',
  'post /webhook/delete',
];

let h: Harness;
beforeAll(async () => {
  h = await startHarness('sqlite', { worker: false });
});
afterAll(() => h.close());

it('documents every endpoint of the spec in /openapi.json with its parameters and answer', async () => {
  const doc = (await h.get('/openapi.json')).body;
  const missing: string[] = [];
  for (const endpoint of SPEC_ENDPOINTS) {
    const [method, path] = endpoint.split(' ');
    const op = doc.paths[path]?.[method];
    if (!op) {
      missing.push(endpoint);
      continue;
    }
    expect(op.responses?.['200'], `${endpoint} has no 200 response`).toBeDefined();
    expect(op.tags?.length, `${endpoint} has no tag`).toBeGreaterThan(0);
    if (method === 'get' && path !== '/credits/consult')
      expect(op.parameters?.length, `${endpoint} documents no query parameters`).toBeGreaterThan(0);
  }
  expect(missing).toEqual([]);
});
