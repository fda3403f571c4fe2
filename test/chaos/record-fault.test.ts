import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../helpers/harness.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { writeMessages } from '../../src/messaging/write.js';
import { chaosScale } from './scale.js';

/**
 * A fault between the hand-off and its record: the database refuses every
 * write that marks a message sent (a trigger) for several leases, then
 * recovers. Before, the failed record released the batch and it was sent again.
 */
describeEngines('chaos: a fault between hand-off and record', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { JOB_LEASE_MS: '500' } });
  });
  afterAll(() => h.close());

  const inject = async () => {
    if (engine === 'sqlite') {
      await sql`CREATE TRIGGER chaos_fault BEFORE UPDATE OF stage ON messages WHEN NEW.stage = 1 BEGIN SELECT RAISE(ABORT, 'injected fault'); END`.execute(
        h.ctx.db.kysely,
      );
    } else {
      await sql`CREATE FUNCTION chaos_fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$`.execute(
        h.ctx.db.kysely,
      );
      await sql`CREATE TRIGGER chaos_fault BEFORE UPDATE OF stage ON messages FOR EACH ROW WHEN (NEW.stage = 1) EXECUTE FUNCTION chaos_fault()`.execute(
        h.ctx.db.kysely,
      );
    }
  };
  const heal = async () => {
    await sql`DROP TRIGGER chaos_fault${sql.raw(engine === 'postgres' ? ' ON messages' : '')}`.execute(h.ctx.db.kysely);
  };

  it('records the hand-off once the database recovers and hands nothing over again', { timeout: 300_000 }, async () => {
    const total = chaosScale(200, 2000);
    const carrier = new RecordingCarrier(['voice'], 100_000, 100);
    h.ctx.carriers.use(carrier);
    const a = await h.createAccount(total * 2);
    await inject();
    const recipients = Array.from({ length: total }, (_, i) => ({
      countryCode: '52',
      number: `5255${String(10000000 + i)}`,
    }));
    const res = await h.ctx.db.kysely.transaction().execute((trx) =>
      writeMessages(trx, h.ctx, {
        accountId: a.id,
        channel: 'voice',
        source: 'voice',
        recipients,
        text: 'Hola',
      }),
    );
    h.ctx.worker.nudge();
    await eventually(async () => carrier.calls >= 1, 10_000);
    // Three leases with the record failing: the claims and the job's lease must survive it.
    await new Promise((r) => setTimeout(r, 1500));
    const stuck = await h.ctx.db.kysely
      .selectFrom('messages')
      .select('id')
      .where('campaign_id', '=', res.campaignId)
      .where('stage', '=', 1)
      .execute();
    expect(stuck).toHaveLength(0);
    await heal();
    await eventually(
      async () =>
        (
          await h.ctx.db.kysely
            .selectFrom('messages')
            .select('id')
            .where('campaign_id', '=', res.campaignId)
            .where('stage', '=', 0)
            .execute()
        ).length === 0,
      240_000,
      100,
    );
    console.info(
      'chaos record fault',
      JSON.stringify({ engine, total, handedOver: carrier.handOffs.size, repeated: carrier.repeated().length }),
    );
    expect(carrier.handOffs.size).toBe(total);
    expect(carrier.repeated()).toEqual([]);
  });
});
