import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { loyaltyShops } from '../../../test/helpers/loyalty.js';
import { listMovements } from './store.js';

describeEngines('loyalty programs', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const { enrolled, cardOf, stamp, redeem } = loyaltyShops(() => h);

  it('refuses a phone already enrolled, also under parallel requests', async () => {
    const s = await enrolled();
    expect(
      (
        await h.post(
          '/loyalty/contact/add',
          { loyalty_key: s.key, phone: s.phone, customer_name: 'Otra', usertool_id: s.staffId },
          s.apikey,
        )
      ).body,
    ).toMatchObject({ status: 400, code: 'loyalty_11' });
    const replies = await Promise.all(
      Array.from({ length: 5 }, () =>
        h.post(
          '/loyalty/contact/add',
          { loyalty_key: s.key, phone: '5587654321', customer_name: 'Par', usertool_id: s.staffId },
          s.apikey,
        ),
      ),
    );
    expect(replies.filter((r) => r.body.code === 'loyalty_sale_01')).toHaveLength(1);
    expect(replies.filter((r) => r.body.code === 'loyalty_11')).toHaveLength(4);
  });

  it('counts every stamp of parallel sales exactly', async () => {
    const s = await enrolled(3);
    const replies = await Promise.all(Array.from({ length: 10 }, () => stamp(s)));
    expect(replies.every((r) => r.body.code === 'loyalty_sale_01')).toBe(true);
    expect(replies.filter((r) => r.body.card_completed)).toHaveLength(3);
    expect(await cardOf(s)).toMatchObject({
      contact_current_stamps: 1,
      contact_total_loyalty_completes: 3,
      contact_current_redeem: 3,
    });
  });

  it('redeems an earned reward once, never more than earned, also in parallel', async () => {
    const s = await enrolled(2);
    expect((await redeem(s)).body).toMatchObject({ status: 400, code: 'loyalty_12' });
    for (let i = 0; i < 4; i++) await stamp(s);
    expect(await cardOf(s)).toMatchObject({ contact_current_redeem: 2 });
    const replies = await Promise.all(Array.from({ length: 6 }, () => redeem(s)));
    expect(replies.filter((r) => r.body.code === 'loyalty_redeem_01')).toHaveLength(2);
    expect(replies.filter((r) => r.body.code === 'loyalty_12')).toHaveLength(4);
    expect(replies.find((r) => r.body.code === 'loyalty_redeem_01')!.body).toMatchObject({
      success: true,
      message: 'reward_redeemed',
      status: 200,
    });
    expect(await cardOf(s)).toMatchObject({ contact_current_redeem: 0, contact_total_loyalty_completes: 2 });
    const member = await h.ctx.db.kysely
      .selectFrom('loyalty_members')
      .selectAll()
      .where('program_id', '=', s.program.id)
      .executeTakeFirstOrThrow();
    expect(member.rewards_redeemed).toBe(2);
    expect((await listMovements(h.ctx.db.kysely, member.id)).filter((m) => m.kind === 'redeem')).toHaveLength(2);
  });
});
