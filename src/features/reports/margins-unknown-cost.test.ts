import { afterAll, beforeAll, expect, it } from 'vitest';
import { allSettled } from '../../../test/helpers/settled.js';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { PRICES_ENV, priceTools } from '../../../test/helpers/prices.js';
import { formatLocalDate } from '../../lib/time.js';
import { marginsText } from './cli.js';

/**
 * A message its carrier took without a cost known for it is not a free one:
 * its row counts it in `cost_unknown` (its cost is left out of `cost`), and the
 * text output warns. A message refused at hand-off has no cost to know.
 */
describeEngines('margins with carrier costs unknown', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: PRICES_ENV });
  });
  afterAll(() => h.close());
  const { cli, ok, send } = priceTools(() => h);
  const today = formatLocalDate(Date.now());

  it('counts the parts handed over without a known cost on each row and in the totals', async () => {
    const a = await h.createAccount(10);
    // Two taken by the simulator (no cost configured for it), one refused at hand-off and refunded.
    await send(a.apikey, '5512345678,5512345679,5559999001');
    await allSettled(h.ctx.db.kysely, (q) => q.where('account_id', '=', a.id));
    const report = await ok('reports', 'margins', '--from', today, '--to', today, '--email', a.email);
    expect(report.rows).toEqual([
      {
        account: a.email,
        parts: 3,
        delivered: 2,
        failed: 1,
        revenue: '2.00',
        cost: '0.00',
        cost_unknown: 2,
        margin: '2.00',
      },
    ]);
    expect(report.totals).toMatchObject({ parts: 3, cost_unknown: 2 });
    const text = marginsText(report);
    expect(text).toMatch(/^account\s+parts\s+delivered\s+failed\s+revenue\s+cost\s+cost_unknown\s+margin\n/);
    expect(text).toMatch(/warning: 2 messages were handed to a carrier with no cost known/);
    const csv = await ok('reports', 'margins', '--from', today, '--to', today, '--email', a.email, '--csv');
    expect(csv.csv).toBe(
      `account,parts,delivered,failed,revenue,cost,cost_unknown,margin\n${a.email},3,2,1,2.00,0.00,2,2.00`,
    );
  });

  it('says which way a reversed period is wrong', async () => {
    expect((await cli('reports', 'margins', '--from', '2026-02-02', '--to', '2026-02-01')).error).toBe(
      '--to is before --from',
    );
  });
});
