import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { PROVIDER_IDS_KEEP_DAYS, pruneReceipts } from './receipts.js';

const DAY = 86_400_000;

/** The upkeep's pruning of carrier ids, waiting receipts and reply parts: each table by its own age, the young rows kept. */
describeEngines('carrier id and receipt pruning', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  it('drops SMPP ids and waiting receipts after 7 days, provider ids after PROVIDER_IDS_KEEP_DAYS, reply parts after a day', async () => {
    const now = Date.now();
    const db = h.ctx.db.kysely;
    const ages = { young: now - 12 * 3_600_000, week: now - 8 * DAY, old: now - (PROVIDER_IDS_KEEP_DAYS + 1) * DAY };
    for (const [age, at] of Object.entries(ages)) {
      await db
        .insertInto('smpp_ids')
        .values({ carrier: 'prune', carrier_id: age, message_id: 1, created_at: at })
        .execute();
      await db.insertInto('carrier_receipts').values({ carrier: 'prune', carrier_id: age, code: 0, at }).execute();
      await db
        .insertInto('provider_message_ids')
        .values({ carrier: 'prune', carrier_id: age, message_id: 1, created_at: at })
        .execute();
      await db
        .insertInto('smpp_reply_parts')
        .values({
          carrier: 'prune',
          source: age,
          reference: 1,
          sequence: 1,
          total: 2,
          destination: '5512345678',
          text: 'Hola',
          received_at: at,
        })
        .execute();
    }

    await pruneReceipts(h.ctx.db, now);

    const left = async (table: 'smpp_ids' | 'carrier_receipts' | 'provider_message_ids') =>
      (
        await db.selectFrom(table).select('carrier_id').where('carrier', '=', 'prune').orderBy('carrier_id').execute()
      ).map((r) => r.carrier_id);
    expect(await left('smpp_ids')).toEqual(['young']);
    expect(await left('carrier_receipts')).toEqual(['young']);
    expect(await left('provider_message_ids')).toEqual(['week', 'young']);
    const parts = await db.selectFrom('smpp_reply_parts').select('source').where('carrier', '=', 'prune').execute();
    expect(parts.map((p) => p.source)).toEqual(['young']);
  });
});
