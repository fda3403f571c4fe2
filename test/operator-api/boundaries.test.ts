import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { startOperatorApi, type OperatorApi } from '../helpers/operator-api.js';

/** Numbers as a query or path parameter may carry them: edges of every range, other notations, and lengths. */
const NUMBERS = [
  '0',
  '1',
  '-1',
  '1.5',
  '1e3',
  '0x1',
  '+1',
  ' 1',
  '',
  '999',
  '1000',
  '1001',
  '10000',
  '10001',
  '9007199254740991',
  '9007199254740992',
  '99999999999999999999',
  ...Array.from({ length: 11 }, (_, i) => '5'.repeat(14 + i)),
  '1'.repeat(200),
  'NaN',
  'Infinity',
  '%00',
];
/** Dates at the edges of what JavaScript's Date and the format hold. */
const DATES = [
  '0000-01-01',
  '0001-01-01',
  '0099-12-31',
  '1969-12-31',
  '1970-01-01',
  '2026-02-29',
  '2028-02-29',
  '2026-13-01',
  '2026-00-10',
  '9998-12-31',
  '9999-12-30',
  '9999-12-31',
  '+10000-01-01',
  '2026-1-1',
  '',
];

describeEngines('operator API parameters at their boundaries', (engine) => {
  let api: OperatorApi;
  let token: string;
  const get = async (path: string) => {
    const r = await api.call('GET', path, { token });
    // Every answer is checked against the OpenAPI document by the client: a 400 must be one it documents.
    expect(r.status, `GET ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(500);
    return r;
  };
  beforeAll(async () => {
    api = await startOperatorApi(engine, { OPERATOR_API_PER_MINUTE: '100000' });
    // A read-only token is enough to reach every GET.
    token = await api.token('reader', true);
  }, 60_000);
  afterAll(async () => {
    await api?.h.close();
  });

  it('answers no 5xx to any number, date or length in a query or path parameter', async () => {
    let cases = 0;
    for (const n of NUMBERS) {
      const v = encodeURIComponent(n);
      for (const path of [
        `/dnc?after=${v}`,
        `/dnc?limit=${v}`,
        `/accounts?page=${v}`,
        `/accounts/${v || '%20'}`,
        `/reports/margins?from=2026-01-01&to=2026-01-02&by=${v}`,
      ]) {
        await get(path);
        cases++;
      }
    }
    for (const from of DATES)
      for (const to of DATES) {
        const r = await get(`/reports/margins?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
        if (r.status !== 200) expect(r.body.code).toBe('op_margins_invalid');
        cases++;
      }
    for (const length of [0, 1, 100, 101, 1000, 6000])
      for (const path of [`/accounts?search=${'a'.repeat(length)}`, `/dnc?after=${'1'.repeat(length)}`]) {
        await get(path);
        cases++;
      }
    expect(cases).toBeGreaterThan(390);
  }, 300_000);

  it('refuses an after of 16 to 20 digits (no number of the list has them) with op_list_invalid', async () => {
    for (let digits = 16; digits <= 20; digits++) {
      const r = await get(`/dnc?after=${'5'.repeat(digits)}`);
      expect([r.status, r.body.code]).toEqual([400, 'op_list_invalid']);
    }
    expect((await get(`/dnc?after=${'5'.repeat(15)}`)).status).toBe(200);
  });

  it('refuses dates whose next day JavaScript cannot write (9999-12-31) with op_margins_invalid', async () => {
    for (const q of ['from=2026-01-01&to=9999-12-31', 'from=9999-12-31&to=9999-12-31', 'from=0000-01-01&to=0000-01-02'])
      expect((await get(`/reports/margins?${q}`)).body.code).toBe('op_margins_invalid');
    expect((await get('/reports/margins?from=9998-12-31&to=9998-12-31')).status).toBe(200);
  });

  it('takes ids, pages and limits in decimal digits only (0x1 is no account)', async () => {
    const a = await api.h.createAccount(1);
    expect((await get(`/accounts/${a.id}`)).status).toBe(200);
    for (const id of [`0x${a.id.toString(16)}`, `${a.id}.0`, `${a.id}e0`, `+${a.id}`, `%20${a.id}`])
      expect((await get(`/accounts/${id}`)).body.code, id).toBe('op_account_missing');
    expect((await get('/accounts?page=0x1')).body.code).toBe('op_page_invalid');
    expect((await get('/dnc?limit=0x10')).body.code).toBe('op_list_invalid');
  });
});
