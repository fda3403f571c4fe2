import { afterAll, beforeAll, expect, it } from 'vitest';
import { allSettled } from '../../../test/helpers/settled.js';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { afterPoll, PRICES_ENV, priceTools } from '../../../test/helpers/prices.js';
import { formatLocalDate, parseLocal } from '../../lib/time.js';
import { MarginError, marginReport } from './margins.js';

/**
 * `reports margins` over the simulator (status by number: 55500000NN gets NN,
 * 5559999… is refused at hand-off and refunded), against the ledger: what
 * left the balance, times the credit value.
 */
describeEngines('reports margins', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: PRICES_ENV });
  });
  afterAll(() => h.close());
  const { cli, ok, send, balance } = priceTools(() => h);
  const today = formatLocalDate(Date.now());

  /** Every message of the account is final (delivered, undelivered or refused). */
  const allFinal = (accountId: number) => allSettled(h.ctx.db.kysely, (q) => q.where('account_id', '=', accountId));
  const margins = (...args: string[]) => ok('reports', 'margins', '--from', today, '--to', today, ...args);

  it('reconciles revenue with the debits less the refund of a refused message, at the credit value of the account', async () => {
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5255', '--credits', '0.5');
    await ok('carriers', 'costs', 'set', '--name', 'simulator', '--prefix', '52', '--cost', '0.0123');
    await h.ctx.carriers.manager.refreshNow();
    await afterPoll();
    const a = await h.createAccount(10);
    expect((await ok('accounts', 'set', '--email', a.email, '--credit-value', '0.35')).credit_value).toBe('0.3500');
    // Delivered ×2, undelivered (status 5, handed over: charged), refused at hand-off (refunded), a default-priced one.
    await send(a.apikey, '5512345678,5512345679,5550000005,5559999001,3312345678');
    await allFinal(a.id);
    expect(await balance(a.apikey)).toBe(10 - 0.5 * 3 - 1);
    const report = await margins('--email', a.email);
    expect(report.currency).toBe('MXN');
    expect(report.rows).toEqual([
      {
        account: a.email,
        parts: 5,
        delivered: 3,
        failed: 2,
        revenue: '0.88', // (0.5 × 3 + 1) × 0.35 = 0.875: what left the balance, in money
        cost: '0.05', // four hand-offs × 0.0123
        cost_unknown: 0,
        margin: '0.83',
      },
    ]);
    expect(report.totals).toMatchObject({ parts: 5, revenue: '0.88', cost: '0.05', margin: '0.83' });
  });

  it('groups by carrier, by the prefix that priced each part and by day, and prints CSV with the JSON fields as header', async () => {
    const a = await h.createAccount(10);
    await send(a.apikey, '5512345600,3312345600,5559999002');
    await allFinal(a.id);
    const byPrefix = await margins('--email', a.email, '--by', 'prefix');
    expect(byPrefix.rows.map((r: { prefix: string; parts: number }) => [r.prefix, r.parts])).toEqual([
      ['', 1],
      ['5255', 2],
    ]);
    const byCarrier = await margins('--email', a.email, '--by', 'carrier');
    expect(byCarrier.rows).toEqual([
      {
        carrier: 'simulator',
        parts: 3,
        delivered: 2,
        failed: 1,
        revenue: '1.50',
        cost: '0.02',
        cost_unknown: 0,
        margin: '1.48',
      },
    ]);
    const byDay = await margins('--email', a.email, '--by', 'day');
    expect(byDay.rows).toEqual(
      [{ ...byCarrier.rows[0], carrier: undefined, day: today }].map(({ carrier: _, ...r }) => r),
    );
    const csv = await margins('--email', a.email, '--by', 'carrier', '--csv');
    expect(csv.csv).toBe(
      'carrier,parts,delivered,failed,revenue,cost,cost_unknown,margin\nsimulator,3,2,1,1.50,0.02,0,1.48',
    );
  });

  it('puts each message in its Mexico City day, also across midnight there (06:00 UTC)', async () => {
    const a = await h.createAccount(10);
    await send(a.apikey, '5512345601,5512345602,5512345603');
    await allFinal(a.id);
    const ids = await h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', a.id).execute();
    // Accepted at 23:30 and 23:59:59 on 1 March and 00:30 on 2 March, Mexico City time.
    const times = ['2026-03-01 23:30:00', '2026-03-01 23:59:59', '2026-03-02 00:30:00'].map((t) => parseLocal(t)!);
    for (const [i, { id }] of ids.entries())
      await h.ctx.db.kysely.updateTable('messages').set({ created_at: times[i] }).where('id', '=', id).execute();
    const report = await ok(
      'reports',
      'margins',
      '--from',
      '2026-02-28',
      '--to',
      '2026-03-02',
      '--by',
      'day',
      '--email',
      a.email,
    );
    expect(report.rows.map((r: { day: string; parts: number }) => [r.day, r.parts])).toEqual([
      ['2026-03-01', 2],
      ['2026-03-02', 1],
    ]);
    expect(report.totals).toMatchObject({ parts: 3, revenue: '1.50' });
  });

  it('refuses malformed periods and groupings with a clear error', async () => {
    const run = (...args: string[]) => cli('reports', 'margins', ...args);
    expect((await run('--from', '2026-13-01', '--to', today)).error).toMatch(/--from/);
    expect((await run('--from', today, '--to', 'tomorrow')).error).toMatch(/--to/);
    expect((await run('--from', '2026-02-02', '--to', '2026-02-01')).error).toMatch(/--to/);
    expect((await run('--from', '2024-01-01', '--to', '2026-01-01')).error).toMatch(/366/);
    expect((await run('--from', today, '--to', today, '--by', 'number')).error).toMatch(/--by/);
    expect((await run('--from', today, '--to', today, '--email', 'nobody@example.com')).error).toMatch(/no account/);
  });

  it('refuses dates outside 1970 to 9998 with a usage error (MarginError: exit code 2), never a RangeError', async () => {
    const run = (...args: string[]) => cli('reports', 'margins', ...args);
    expect((await run('--from', '9999-12-31', '--to', '9999-12-31')).error).toMatch(/--from is a date.*9998-12-31/);
    expect((await run('--from', today, '--to', '9999-12-31')).error).toMatch(/--to is a date/);
    expect((await run('--from', '0000-01-01', '--to', '0000-01-02')).error).toMatch(/--from is a date/);
    expect((await run('--from', '1970-01-01', '--to', '9998-12-31')).error).toMatch(/366/);
    await expect(marginReport(h.ctx, { from: today, to: '9999-12-31', by: 'account' })).rejects.toBeInstanceOf(
      MarginError,
    );
    expect((await run('--from', '9998-12-31', '--to', '9998-12-31')).rows).toEqual([]);
  });
});
