import { afterAll, beforeAll, expect, it } from 'vitest';
import { allSettled } from '../../test/helpers/settled.js';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../test/helpers/harness.js';
import { evaluateQuality } from './quality.js';
import { setQuality } from './quality-settings.js';
import { SIMULATOR } from './store.js';

/**
 * A shared carrier is demoted only when its delivery rate stays below the
 * minimum with any one account's receipts left out: one account's
 * undeliverable traffic cannot demote it for every other account, while the
 * failures of several accounts still do. The simulator reports status 1
 * (undelivered) for 5550000001 and delivers 55123xxxxx.
 */
describeEngines('carrier quality: failures spread over accounts', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { SIMULATOR_DLR_DELAY_MS: '0' } });
    await setQuality(h.ctx.db.kysely, SIMULATOR, { minDeliveryRate: 8000, minMessages: 10, windowMinutes: 10 });
  });
  afterAll(() => h.close());

  const sendEach = async (a: TestAccount, numbers: string[]) => {
    for (const n of numbers)
      expect((await h.post('/sms/send', { numbers: n, message: 'x' }, a.apikey)).body.code).toBe('sms_11');
  };
  const allFinal = () => allSettled(h.ctx.db.kysely);
  const demoted = async () => (await evaluateQuality(h.ctx.db.kysely, Date.now())).demoted.has(SIMULATOR);
  const undeliverable = (n: number) => Array<string>(n).fill('5550000001');

  it('25 undeliverable messages of one account do not demote the carrier the others use', async () => {
    const attacker = await h.createAccount(100);
    const others = [await h.createAccount(10), await h.createAccount(10)];
    await sendEach(others[0], ['5512300001', '5512300002', '5512300003']);
    await sendEach(others[1], ['5512300004', '5512300005', '5512300006']);
    await sendEach(attacker, undeliverable(25));
    await allFinal();
    // Over every receipt the rate is 6 / 31 = 0.19, under the minimum of 0.8; without the attacker, 6 receipts (< 10).
    expect(await demoted()).toBe(false);
    const row = await h.ctx.db.kysely.selectFrom('carrier_quality').selectAll().executeTakeFirstOrThrow();
    expect(row.demoted_at).toBeNull();
  });

  it('the failures of three accounts demote it', async () => {
    for (let i = 0; i < 3; i++) await sendEach(await h.createAccount(20), undeliverable(10));
    await allFinal();
    expect(await demoted()).toBe(true);
    const row = await h.ctx.db.kysely.selectFrom('carrier_quality').selectAll().executeTakeFirstOrThrow();
    expect(row.demoted_at).not.toBeNull();
  });

  it('one account failing its messages cannot hold it demoted while the others’ are delivered again', async () => {
    // Demoted from now on (the upkeep may have demoted it while the previous test still sent).
    const now = Date.now();
    await h.ctx.db.kysely.updateTable('carrier_quality').set({ demoted_at: now, changed_at: now }).execute();
    const others = [await h.createAccount(10), await h.createAccount(10)];
    await sendEach(await h.createAccount(100), undeliverable(20));
    await sendEach(others[0], ['5512300011', '5512300012', '5512300013', '5512300014', '5512300015', '5512300016']);
    await sendEach(others[1], ['5512300017', '5512300018', '5512300019', '5512300020', '5512300021', '5512300022']);
    await allFinal();
    // Since the demotion 12 of 32 were delivered (0.375); without the failing account 12 of 12.
    expect(await demoted()).toBe(false);
  });
});

/**
 * A small deployment: the only account (or the only two) that use a carrier
 * are all there is to judge it by. Leaving an account out is for shared
 * carriers: with one account nothing is left, and a dead carrier is demoted.
 * Each case on a fresh database (receipts of another case would count).
 */
const cases: Array<[string, Array<{ undelivered: number; delivered?: number }>, boolean]> = [
  ['23 undelivered of 23 from the only account demote it', [{ undelivered: 23 }], true],
  [
    'two accounts whose messages all fail demote it, however few the first sent',
    [{ undelivered: 3 }, { undelivered: 20 }],
    true,
  ],
  // The others' deliveries first (alone, the failing account is all there is); 3 / 28 over all, 3 of 3 without it.
  [
    'one account’s failures beside another’s deliveries do not demote it',
    [{ undelivered: 0, delivered: 3 }, { undelivered: 25 }],
    false,
  ],
];
for (const [title, accounts, expected] of cases) {
  describeEngines(`carrier quality with one or two accounts: ${title}`, (engine) => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness(engine, { env: { SIMULATOR_DLR_DELAY_MS: '0' } });
      await setQuality(h.ctx.db.kysely, SIMULATOR, { minDeliveryRate: 8000, minMessages: 10, windowMinutes: 10 });
    });
    afterAll(() => h.close());

    it(title, async () => {
      for (const { undelivered, delivered = 0 } of accounts) {
        const a = await h.createAccount(100);
        const numbers = [
          ...Array<string>(undelivered).fill('5550000001'),
          ...Array.from({ length: delivered }, (_, i) => `55123000${String(i + 1).padStart(2, '0')}`),
        ];
        for (const n of numbers)
          expect((await h.post('/sms/send', { numbers: n, message: 'x' }, a.apikey)).body.code).toBe('sms_11');
      }
      await allSettled(h.ctx.db.kysely);
      expect((await evaluateQuality(h.ctx.db.kysely, Date.now())).demoted.has(SIMULATOR)).toBe(expected);
    });
  });
}
