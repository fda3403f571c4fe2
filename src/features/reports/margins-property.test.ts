import { afterAll, beforeAll, expect, it } from 'vitest';
import { allSettled } from '../../../test/helpers/settled.js';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { afterPoll, PRICES_ENV, priceTools } from '../../../test/helpers/prices.js';
import { formatLocalDate } from '../../lib/time.js';

/** A small seeded generator: the same run every time, a different mix per seed. */
function random(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { int, pick: <T>(xs: T[]) => xs[int(xs.length)] };
}

/** Money of 1e-8 of the currency (credit units × ten-thousandths) → cents, half up: computed here, apart from the report. */
const cents = (amount: bigint): string => {
  if (amount < 0n) return `-${cents(-amount)}`;
  const c = (amount * 100n + 50_000_000n) / 100_000_000n;
  return `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
};

/**
 * A mixed run (accounts and sub-accounts at their own credit values, prices
 * at several levels, delivered, undelivered and refused recipients) after
 * which every account's revenue is exactly what left its balance times its
 * credit value, every grouping has the same totals, and the cost is the
 * hand-offs times the carrier's cost.
 */
describeEngines('margins reconcile with balances after a mixed run', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: PRICES_ENV });
  });
  afterAll(() => h.close());
  const { ok, subOf, send } = priceTools(() => h);
  const today = formatLocalDate(Date.now());
  const units = async (id: number) =>
    Number(
      (await h.ctx.db.kysely.selectFrom('accounts').select('credits').where('id', '=', id).executeTakeFirstOrThrow())
        .credits,
    );

  for (const seed of [7, 2026]) {
    it(`holds for seed ${seed}`, async () => {
      const rnd = random(seed);
      const money = () => `${rnd.int(5)}.${String(rnd.int(10_000)).padStart(4, '0')}`;
      const credits = () => `${rnd.int(3)}.${String(rnd.int(10_000)).padStart(4, '0')}`;
      await ok('prices', 'set', '--channel', 'sms', '--prefix', '5255', '--credits', credits());
      await ok('carriers', 'costs', 'set', '--name', 'simulator', '--prefix', '52', '--cost', money());
      const accounts: Array<{ id: number; email: string; apikey: string; creditValue: bigint; start: number }> = [];
      for (let p = 0; p < 2; p++) {
        const parent = await h.createAccount(1000);
        const value = money();
        await ok('accounts', 'set', '--email', parent.email, '--credit-value', value);
        await ok(
          'prices',
          'set',
          '--channel',
          'sms',
          '--prefix',
          '5233',
          '--credits',
          credits(),
          '--email',
          parent.email,
        );
        const sub = await subOf(parent, 200);
        let subValue = value;
        if (p === 1) {
          subValue = money();
          await ok('accounts', 'set', '--email', sub.plainEmail, '--parent', parent.email, '--credit-value', subValue);
        }
        const tt = (v: string) => BigInt(v.replace('.', ''));
        accounts.push({ ...parent, creditValue: tt(value), start: await units(parent.id) });
        accounts.push({ ...sub, creditValue: tt(subValue), start: await units(sub.id) });
      }
      await h.ctx.carriers.manager.refreshNow();
      await afterPoll();
      const numbers = () =>
        rnd.pick([
          () => `55123456${String(rnd.int(100)).padStart(2, '0')}`,
          () => `55500000${String(1 + rnd.int(12)).padStart(2, '0')}`,
          () => `5559999${String(rnd.int(1000)).padStart(3, '0')}`,
          () => `33123456${String(rnd.int(100)).padStart(2, '0')}`,
        ])();
      for (let k = 0; k < 16; k++) {
        const a = rnd.pick(accounts);
        await send(a.apikey, Array.from({ length: 1 + rnd.int(5) }, numbers).join(','));
      }
      const ids = accounts.map((a) => a.id);
      await allSettled(h.ctx.db.kysely, (q) => q.where('account_id', 'in', ids));

      const sent = await h.ctx.db.kysely
        .selectFrom('messages')
        .select(['account_id', 'status', 'sent_at', 'cost'])
        .where('account_id', 'in', ids)
        .execute();
      const [{ cost }] = (await ok('carriers', 'costs', 'list', '--name', 'simulator')).costs;
      const costPerPart = BigInt(cost.replace('.', ''));
      for (const p of [0, 1]) {
        const family = accounts.slice(p * 2, p * 2 + 2);
        const report = await ok('reports', 'margins', '--from', today, '--to', today, '--email', family[0].email);
        let familyRevenue = 0n;
        for (const a of family) {
          // The ledger: what left the balance (debits less refunds), at the account's credit value.
          const spent = BigInt(a.start - (await units(a.id))) * a.creditValue;
          familyRevenue += spent;
          const row = report.rows.find((r: { account: string }) => a.email.endsWith(r.account));
          expect(row?.revenue ?? '0.00').toBe(cents(spent));
        }
        const mine = sent.filter((m) => family.some((a) => a.id === Number(m.account_id)));
        const handedOver = BigInt(mine.filter((m) => m.sent_at !== null).length);
        expect(report.totals).toMatchObject({
          parts: mine.length,
          delivered: mine.filter((m) => m.status === 'delivered').length,
          failed: mine.filter((m) => m.status !== 'delivered').length,
          revenue: cents(familyRevenue),
          cost: cents(handedOver * costPerPart * 10_000n),
          margin: cents(familyRevenue - handedOver * costPerPart * 10_000n),
        });
      }
      expect(sent.some((m) => m.status === 'refused')).toBe(true);
      expect(sent.some((m) => m.status === 'undelivered')).toBe(true);
      // Every grouping sums to the same totals.
      const totals = new Set<string>();
      for (const by of ['account', 'carrier', 'prefix', 'day'])
        totals.add(JSON.stringify((await ok('reports', 'margins', '--from', today, '--to', today, '--by', by)).totals));
      expect(totals.size).toBe(1);
    });
  }
});
