import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { dispatchMessages } from '../../messaging/dispatch.js';
import { freshPhone, otpClient, recordCarrier } from './testing.js';

/**
 * The code's message is inserted claimed by the process's shared dispatch:
 * no other dispatcher (the safety-net job) takes it meanwhile, and the shared
 * round submits it without writing a claim of its own. It is handed over once.
 */
describeEngines('OTP hand-off of the code', (engine) => {
  let h: Harness;
  let key: string;
  let carrier: ReturnType<typeof recordCarrier>;
  beforeAll(async () => {
    h = await startHarness(engine);
    carrier = recordCarrier(h.ctx);
    key = (await h.createAccount(1000)).apikey;
  });
  afterAll(() => h.close());

  const claimOf = (id: number) =>
    h.ctx.db.kysely
      .selectFrom('messages')
      .select(['stage', 'claim_token'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('is handed over under the claim it was inserted with, once, and no other dispatcher sends it again', async () => {
    const c = otpClient(h, key, freshPhone());
    const r = await c.send();
    expect(r.status).toBe(201);
    const [m] = await c.messages();
    const row = await claimOf(m.id);
    // Handed over (1), or already delivered (2): the simulator's receipt may come first on a loaded machine.
    expect(row.stage).toBeGreaterThanOrEqual(1);
    expect(row.claim_token).toBe(h.ctx.sharedDispatch.claim().token);
    expect(await dispatchMessages(h.ctx, [m.id])).toEqual([]);
    expect(carrier.textsTo(c.fullNumber)).toHaveLength(1);
  });

  it('parallel creates share the one claim and each code goes out once', async () => {
    const clients = Array.from({ length: 6 }, () => otpClient(h, key, freshPhone()));
    const replies = await Promise.all(clients.map((c) => c.send()));
    expect(replies.map((r) => r.status)).toEqual(clients.map(() => 201));
    for (const c of clients) {
      const [m] = await c.messages();
      expect((await claimOf(m.id)).claim_token).toBe(h.ctx.sharedDispatch.claim().token);
      expect(carrier.textsTo(c.fullNumber)).toHaveLength(1);
    }
  });
});
