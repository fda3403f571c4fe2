import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { send, writeSend } from './send.js';
import { findAccountById } from '../accounts/store.js';
import { watchQueries, type RunOnSameConnection } from '../../test/helpers/queries.js';
import type { SendRequest } from './types.js';

/**
 * A send's debit is its last statement but its ledger entry: on PostgreSQL it locks the account's row until COMMIT, so the account's sends
 * in other processes wait for the commit only. A balance that cannot cover the send refuses it before anything is
 * written; one spent between that read and the debit refuses it at the debit, and the transaction writes nothing.
 */
describeEngines('the debit last', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  const request = (accountId: number, recipients = 1): SendRequest => ({
    accountId,
    channel: 'sms',
    source: 'sms',
    recipients: Array.from({ length: recipients }, (_, n) => ({
      countryCode: '52',
      number: `5255${String(10_000_000 + n)}`,
    })),
    text: 'Hola',
  });

  const DEBIT = /^update "accounts" set "credits"/;

  /** The SQL of every statement sent through Kysely while `work` runs; `before(sql)` runs ahead of each. */
  async function statementsDuring<T>(
    work: () => Promise<T>,
    before: (sql: string, run: RunOnSameConnection) => Promise<void> = async () => {},
  ): Promise<{ outcome: PromiseSettledResult<T>; statements: string[] }> {
    const statements: string[] = [];
    const [outcome] = await Promise.allSettled([
      watchQueries(
        h.ctx.db.kysely,
        async (sql, run) => {
          await before(sql, run);
          statements.push(sql);
        },
        work,
      ),
    ]);
    return { outcome, statements };
  }

  const messagesOf = async (accountId: number) =>
    (await h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', accountId).execute()).length;
  const balanceOf = async (accountId: number) => Number((await findAccountById(h.ctx.db.kysely, accountId))?.credits);

  it('debits after every other write of the send', async () => {
    const a = await h.createAccount(10);
    const { outcome, statements } = await statementsDuring(() => send(h.ctx, [request(a.id, 3)], 'queued'));
    expect(outcome.status).toBe('fulfilled');
    const debit = statements.findIndex((s) => DEBIT.test(s));
    expect(debit).toBeGreaterThan(statements.findIndex((s) => /^insert into "messages"/.test(s)));
    expect(debit).toBeGreaterThan(statements.findIndex((s) => /^insert into "campaigns"/.test(s)));
    // Only its ledger entry follows it (the entry keeps the balance the debit left), then the family's spend of the
    // day (spending limits: its row, shared by the family, is locked as briefly as the account's).
    const after = statements.slice(debit + 1).filter((s) => /^(insert|update|delete)/i.test(s));
    expect(after[0]).toMatch(/^insert into "credit_ledger"/);
    expect(after.slice(1).length).toBeGreaterThan(0);
    expect(after.slice(1).every((s) => /^(insert into|update) "spend_days"/.test(s))).toBe(true);
    expect(await balanceOf(a.id)).toBe(7 * 10_000);
  });

  it('refuses a send its balance cannot cover before writing anything', async () => {
    const a = await h.createAccount(2);
    const { outcome, statements } = await statementsDuring(() => send(h.ctx, [request(a.id, 3)], 'queued'));
    expect(outcome.status === 'rejected' && (outcome.reason as { code?: string }).code).toBe('insufficient_credits');
    expect(statements.filter((s) => /^(insert|update|delete)/i.test(s))).toEqual([]);
    expect(await balanceOf(a.id)).toBe(2 * 10_000);
  });

  it('refuses at the debit a send whose balance was spent after it was read, and writes nothing', async () => {
    const a = await h.createAccount(10);
    const { outcome, statements } = await statementsDuring(
      () => h.ctx.db.kysely.transaction().execute((trx) => writeSend(trx, h.ctx, [request(a.id, 3)], 'queued')),
      // Another send spends the balance between the price read and the debit (in the same transaction here).
      async (text, run) => {
        if (DEBIT.test(text))
          await run(sql`update accounts set credits = 0 where id = ${a.id}`.compile(h.ctx.db.kysely));
      },
    );
    expect(outcome.status === 'rejected' && (outcome.reason as { code?: string }).code).toBe('insufficient_credits');
    expect(statements.some((s) => /^insert into "messages"/.test(s))).toBe(true);
    expect(await messagesOf(a.id)).toBe(0);
    expect(await h.ctx.db.kysely.selectFrom('campaigns').select('id').where('account_id', '=', a.id).execute()).toEqual(
      [],
    );
    // Rolled back with the rest: the balance is the one before the send.
    expect(await balanceOf(a.id)).toBe(10 * 10_000);
  });
});
