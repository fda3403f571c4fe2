import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, type Harness } from '../../../test/helpers/harness.js';
import { smppCustomer, startSmppHarness } from '../../../test/helpers/smpp-server.js';
import { reserveEach, reserveParts } from './throughput.js';

/** An SMPP user's throughput at chosen instants (the `now` of each reservation): refused submissions count too. */
describeEngines('SMPP users: throughput counts every submission', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine);
  });
  afterAll(() => h.close());

  const userOf = async () => {
    const c = await smppCustomer(h, 0, { throughput: 50 });
    const row = await h.ctx.db.kysely
      .selectFrom('smpp_users')
      .select('id')
      .where('system_id', '=', c.systemId)
      .executeTakeFirstOrThrow();
    return Number(row.id);
  };
  const T0 = 1_800_000_000_000;

  it('a client retrying throttled submissions in a loop is slowed, not served', async () => {
    const id = await userOf();
    expect(await reserveParts(h.ctx.db, id, 50, 50, T0)).toBe(true);
    // 7,750 throttled retries within the second (in turns of 250), all refused.
    for (let turn = 0; turn < 31; turn++)
      expect(await reserveEach(h.ctx.db, id, 50, Array(250).fill(1), T0 + 500 + turn)).toEqual(Array(250).fill(false));
    // The first 50 parts have left the window; the retries have not: still refused.
    expect(await reserveEach(h.ctx.db, id, 50, Array(50).fill(1), T0 + 1150)).toEqual(Array(50).fill(false));
    // A client that waits out the window is served again.
    expect(await reserveParts(h.ctx.db, id, 50, 50, T0 + 2700)).toBe(true);
  });

  it('a message larger than the cap is refused and counted', async () => {
    const id = await userOf();
    expect(await reserveParts(h.ctx.db, id, 50, 280, T0)).toBe(false);
    expect(await reserveParts(h.ctx.db, id, 50, 1, T0 + 100)).toBe(false);
    expect(await reserveParts(h.ctx.db, id, 50, 1, T0 + 1200)).toBe(true);
  });
});
