import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { walletShops } from '../../../test/helpers/wallet.js';
import { listMovements } from './store.js';

describeEngines('wallet programs', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const { enrolled, balanceOf } = walletShops(() => h);

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
});
