import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { send } from './send.js';
import { watchQueries } from '../../test/helpers/queries.js';
import type { SendRequest } from './types.js';

/**
 * Single sends of one account that arrive together are written together: one debit and one INSERT of messages for
 * all of them, each keeping its campaign and its answer. When the balance covers only some, each is written alone,
 * so exactly those that fit are accepted, in the order they came.
 */
describeEngines('merged single sends', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  const request = (accountId: number, n: number): SendRequest => ({
    accountId,
    channel: 'sms',
    source: 'sms',
    recipients: [{ countryCode: '52', number: `5255${String(10_000_000 + n)}` }],
    text: 'Hola',
  });

  /** Counts the debits of accounts (UPDATE accounts … credits) sent to the database while `work` runs. */
  async function debitsDuring<T>(work: () => Promise<T>): Promise<{ value: T; debits: number }> {
    let debits = 0;
    const value = await watchQueries(
      h.ctx.db.kysely,
      (sql) => void (/update "accounts" set "credits"/.test(sql) && debits++),
      work,
    );
    return { value, debits };
  }

  it('writes 20 concurrent sends of one account with one debit, each with its own campaign and answer', async () => {
    const a = await h.createAccount(100);
    const { value: results, debits } = await debitsDuring(() =>
      Promise.all(Array.from({ length: 20 }, (_, n) => send(h.ctx, [request(a.id, n)], 'queued'))),
    );
    expect(debits).toBe(1);
    const campaigns = new Set(results.map(([r]) => r.campaignId));
    expect(campaigns.size).toBe(20);
    results.forEach(([r], n) => expect(r.references[0].number).toBe(`5255${String(10_000_000 + n)}`));
    const rows = await h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', a.id).execute();
    expect(rows).toHaveLength(20);
  });

  it('accepts exactly the sends the balance covers when it cannot cover them all, and refuses the rest as insufficient_credits', async () => {
    const a = await h.createAccount(7);
    const settled = await Promise.allSettled(
      Array.from({ length: 12 }, (_, n) => send(h.ctx, [request(a.id, n)], 'queued')),
    );
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(7);
    const refused = settled.filter((s) => s.status === 'rejected') as PromiseRejectedResult[];
    expect(refused.map((r) => (r.reason as { code?: string }).code)).toEqual(Array(5).fill('insufficient_credits'));
    const balance = await h.ctx.db.kysely
      .selectFrom('accounts')
      .select('credits')
      .where('id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(Number(balance.credits)).toBe(0);
  });
});
