import { expect } from 'vitest';
import { createLoyalty } from '../../src/features/loyalty/service.js';
import type { Harness, TestAccount } from './harness.js';

let staffCounter = 0;

type Card = { apikey: string; key: string; phone: string };
type Till = Card & { staffId: number };

/** The programs, staff and cards the loyalty tests make through the API. */
export function loyaltyShops(harness: () => Harness) {
  async function addStaff(account: TestAccount): Promise<number> {
    const n = ++staffCounter;
    const r = await harness().post(
      '/employee/add',
      {
        type: 'gerente',
        employee_name: `Gerente ${n}`,
        business_name: 'Norte',
        number: String(5540000000 + n),
        password: `clave-${n}`,
      },
      account.apikey,
    );
    expect(r.body.code).toBe('toolusers_01');
    return r.body.collaboratorId;
  }

  /** An account with one active staff user and a program of `stamps` stamps with one enrolled phone. */
  async function enrolled(stamps = 3, phone = '5512345678') {
    const account = await harness().createAccount();
    const staffId = await addStaff(account);
    const program = await createLoyalty(harness().ctx, account.id, 'Café', stamps);
    const s = { account, apikey: account.apikey, staffId, key: program.loyalty_key, program, phone };
    const r = await harness().post(
      '/loyalty/contact/add',
      { loyalty_key: s.key, phone, customer_name: 'Carla', usertool_id: staffId },
      s.apikey,
    );
    expect(r.body.code).toBe('loyalty_sale_01');
    return s;
  }

  const cardOf = async (s: Card) =>
    (await harness().post('/loyalty/contact/get', { loyalty_key: s.key, phone: s.phone }, s.apikey)).body.result[0];
  const stamp = (s: Till) =>
    harness().post('/loyalty/sale', { loyalty_key: s.key, phone: s.phone, usertool_id: s.staffId }, s.apikey);
  const redeem = (s: Till) =>
    harness().post('/loyalty/redeem', { loyalty_key: s.key, phone: s.phone, usertool_id: s.staffId }, s.apikey);

  return { addStaff, enrolled, cardOf, stamp, redeem };
}
