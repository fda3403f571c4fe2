import { expect } from 'vitest';
import { createWallet } from '../../src/features/wallet/service.js';
import type { Harness, TestAccount } from './harness.js';

let staffCounter = 0;

/** The shops the wallet tests make through the API. */
export function walletShops(harness: () => Harness) {
  /** An account with one active staff user and one wallet. */
  async function shop() {
    const account = await harness().createAccount();
    const staffId = await addStaff(account);
    const wallet = await createWallet(harness().ctx, account.id, 'Monedero');
    return { account, apikey: account.apikey, staffId, key: wallet.wallet_key, wallet };
  }

  async function addStaff(account: TestAccount): Promise<number> {
    const n = ++staffCounter;
    const r = await harness().post(
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
    const r = await harness().post(
      '/wallet/contact/add',
      { wallet_key: s.key, phone, customer_name: 'Carla', usertool_id: s.staffId },
      s.apikey,
    );
    expect(r.body.code).toBe('wallet_contact_add_01');
    return { ...s, phone };
  }

  const balanceOf = async (s: { apikey: string; key: string }, phone: string) =>
    (await harness().post('/wallet/contact/get', { wallet_key: s.key, phone }, s.apikey)).body.result[0]
      .contact_balance as number;

  return { shop, addStaff, enrolled, balanceOf };
}
