import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../test/helpers/harness.js';
import { ask, bindClient, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';
import { removeSmppUser } from '../features/smpp-users/service.js';
import { throughputKey } from '../features/smpp-users/throughput.js';

/** The throughput counters of SMPP users (carrier_rate rows `smpp-user:<id>`) and their unanswered submits do not pile up. */
describeEngines('SMPP server: throughput counters are pruned', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine, { smpp: { renewMs: 50, pruneEvery: 1 } });
  });
  afterAll(() => h.close());

  const rowsOf = async (key: string) =>
    (
      await h.ctx.db.kysely.selectFrom('carrier_rate').select(['second', 'used']).where('carrier', '=', key).execute()
    ).map((r) => ({ second: Number(r.second), used: Number(r.used) }));
  const userId = async (systemId: string) =>
    Number(
      (await h.ctx.db.kysely.selectFrom('smpp_users').select('id').where('system_id', '=', systemId).executeTakeFirst())
        ?.id,
    );

  it('removing an SMPP user deletes its counters with it', async () => {
    const c = await smppCustomer(h, 100, { throughput: 50 });
    const { session, status } = await bindClient(h.smppPort, c.systemId, c.password, 'transmitter');
    expect(status).toBe(0);
    const resp = await ask(session, 'submit_sm', {
      destination_addr: '525512345678',
      dest_addr_ton: 1,
      short_message: Buffer.from(gsmSeptets('cuenta')),
    });
    expect(resp.command_status).toBe(0);
    const key = throughputKey(await userId(c.systemId));
    expect((await rowsOf(key)).length).toBeGreaterThan(0);
    session.close();

    expect(await removeSmppUser(h.ctx.db, c.systemId)).toBe(true);
    expect(await rowsOf(key)).toEqual([]);
  });

  it("deletes slots older than the sliding second, keeps live ones and the carriers' own counters", async () => {
    const slot = Math.floor(Date.now() / 100);
    const carrierSecond = Math.floor(Date.now() / 1000);
    await h.ctx.db.kysely
      .insertInto('carrier_rate')
      .values([
        { carrier: throughputKey(990001), second: slot - 50, used: 3 },
        { carrier: throughputKey(990001), second: slot + 100, used: 2 },
        { carrier: throughputKey(990002), second: slot - 12, used: 1 },
        { carrier: 'simulator', second: carrierSecond, used: 4 },
      ])
      .execute();
    await eventually(async () => (await rowsOf(throughputKey(990002))).length === 0, 10_000);
    expect(await rowsOf(throughputKey(990001))).toEqual([{ second: slot + 100, used: 2 }]);
    expect(await rowsOf('simulator')).toContainEqual({ second: carrierSecond, used: 4 });
  });

  it('deletes unanswered-submit records past the resubmission window, of users who never bind again', async () => {
    const c = await smppCustomer(h, 100);
    const id = await userId(c.systemId);
    const window = h.ctx.config.SMPP_SERVER_RESUBMIT_WINDOW_SECONDS * 1000;
    await h.ctx.db.kysely
      .insertInto('smpp_resubmits')
      .values([
        { smpp_user_id: id, fingerprint: 'old', reference: 'r-old', created_at: Date.now() - window - 60_000 },
        { smpp_user_id: id, fingerprint: 'live', reference: 'r-live', created_at: Date.now() },
      ])
      .execute();
    const left = async () =>
      (
        await h.ctx.db.kysely
          .selectFrom('smpp_resubmits')
          .select('fingerprint')
          .where('smpp_user_id', '=', id)
          .execute()
      ).map((r) => r.fingerprint);
    await eventually(async () => !(await left()).includes('old'), 10_000);
    expect(await left()).toEqual(['live']);
  });
});
