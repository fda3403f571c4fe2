import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { enqueue } from '../jobs/queue.js';
import { HOUSEKEEPING_JOB } from '../app/housekeeping.js';

/** A carrier's deliver_sm flood to an address nobody owns or routes leaves bounded rows: housekeeping prunes by age and count. */
describeEngines('unmatched replies housekeeping', (engine) => {
  let h: Harness;
  const db = () => h.ctx.db.kysely;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { UNMATCHED_REPLIES_KEEP_DAYS: '30', UNMATCHED_REPLIES_KEEP_ROWS: '5' } });
  });
  afterAll(() => h.close());

  it('removes replies older than UNMATCHED_REPLIES_KEEP_DAYS and all but the newest UNMATCHED_REPLIES_KEEP_ROWS', async () => {
    const now = Date.now();
    const row = (text: string, at: number) => ({
      carrier: 'smsc',
      source: '525500000001',
      destination: '99999',
      text,
      received_at: at,
    });
    await db()
      .insertInto('unmatched_replies')
      .values([row('old 1', now - 31 * 86_400_000), row('old 2', now - 30 * 86_400_000 - 60_000)])
      .execute();
    await db()
      .insertInto('unmatched_replies')
      .values(Array.from({ length: 8 }, (_, i) => row(`flood ${i}`, now - 86_400_000 + i)))
      .execute();
    await enqueue(db(), HOUSEKEEPING_JOB, null);
    h.ctx.worker.nudge(HOUSEKEEPING_JOB);
    const texts = async () =>
      (await db().selectFrom('unmatched_replies').select('text').orderBy('id').execute()).map((r) => r.text);
    await eventually(async () => (await texts()).length === 5);
    expect(await texts()).toEqual(['flood 3', 'flood 4', 'flood 5', 'flood 6', 'flood 7']);
  });
});
