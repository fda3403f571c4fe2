import { afterAll, beforeAll, expect, it } from 'vitest';
import { allSettled } from '../../../test/helpers/settled.js';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { priceTools } from '../../../test/helpers/prices.js';
import { routingTools } from '../../../test/helpers/routing.js';
import { SMPP_ENV } from '../../../test/helpers/smpp-suite.js';
import { formatLocalDate } from '../../lib/time.js';

/**
 * Margins over real SMSCs at different costs: a cheap one that degrades
 * (every receipt UNDELIV), a dear one that delivers, and one that refuses
 * at hand-off (refunded). Each carrier's row holds its own parts, receipts
 * and cost; the revenue is what left the balance.
 */
describeEngines('margins with two SMSCs at different costs, one degrading', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { carrier, setCost, route, numbers, sendAll } = routingTools(() => h);
  const { ok, balance } = priceTools(() => h);
  const today = formatLocalDate(Date.now());

  it('gives each carrier its parts, receipts and cost, and reconciles the revenue with the ledger', async () => {
    const cheap = await carrier({ receipt: () => ({ stat: 'UNDELIV', err: '001' }) });
    const dear = await carrier({ receipt: () => ({ stat: 'DELIVRD' }) });
    const refusing = await carrier({ answer: () => ({ status: 0x0b }) });
    await setCost(cheap.name, '525586', 100);
    await setCost(dear.name, '525586', 200);
    await setCost(refusing.name, '525587', 300);
    await route('525586', [cheap.name, dear.name], 'weighted', ['--weights', '1,1']);
    await route('525587', [refusing.name], 'priority');
    const a = await h.createAccount(100);
    const before = await balance(a.apikey);
    const sent = await sendAll(a.apikey, numbers('525586', 6));
    const refs = [...sent.map((m) => m.reference)];
    const refused = await h.post('/sms/send', { numbers: numbers('525587', 1).join(','), message: 'Hola' }, a.apikey);
    refs.push(refused.body.references[0].reference);
    await allSettled(h.ctx.db.kysely, (q) => q.where('reference', 'in', refs));

    const spent = before - (await balance(a.apikey));
    expect(spent).toBe(6); // the refused one was refunded
    const report = await ok(
      'reports',
      'margins',
      '--from',
      today,
      '--to',
      today,
      '--email',
      a.email,
      '--by',
      'carrier',
    );
    const row = (name: string) => report.rows.find((r: { carrier: string }) => r.carrier === name);
    expect(row(cheap.name)).toEqual({
      carrier: cheap.name,
      parts: 3,
      delivered: 0,
      failed: 3,
      revenue: '3.00',
      cost: '0.03',
      cost_unknown: 0,
      margin: '2.97',
    });
    expect(row(dear.name)).toEqual({
      carrier: dear.name,
      parts: 3,
      delivered: 3,
      failed: 0,
      revenue: '3.00',
      cost: '0.06',
      cost_unknown: 0,
      margin: '2.94',
    });
    expect(row(refusing.name)).toMatchObject({ parts: 1, delivered: 0, failed: 1, revenue: '0.00', cost: '0.00' });
    expect(report.totals).toMatchObject({ parts: 7, revenue: `${spent}.00`, cost: '0.09', margin: '5.91' });
  });
});
