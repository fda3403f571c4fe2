import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { finishAttempt, pruneAttemptCounters, reserveAttempt } from './attempts.js';

describeEngines('attempt counters', (engine) => {
  let h: Harness;
  let n = 0;
  const limit = (max = 5) => ({ key: `test:${++n}`, limit: max, windowMs: 60_000 });
  const row = (key: string) =>
    h.ctx.db.kysely.selectFrom('attempt_counters').selectAll().where('key', '=', key).executeTakeFirstOrThrow();

  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  it('reserves at most the limit between parallel attempts', async () => {
    const l = limit();
    const taken = await Promise.all(Array.from({ length: 50 }, () => reserveAttempt(h.ctx.db.kysely, l)));
    expect(taken.filter(Boolean)).toHaveLength(5);
    expect(await row(l.key)).toMatchObject({ attempts: 5, in_flight: 5 });
  });

  it('a success clears finished failures but keeps the attempts still running', async () => {
    const l = limit();
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => reserveAttempt(h.ctx.db.kysely, l)));
    await finishAttempt(h.ctx.db.kysely, a!, 'failed');
    await finishAttempt(h.ctx.db.kysely, b!, 'cleared');
    // c is still running: it counts, so 4 more fit, not 5.
    expect(await row(l.key)).toMatchObject({ attempts: 1, in_flight: 1 });
    const more = await Promise.all(Array.from({ length: 10 }, () => reserveAttempt(h.ctx.db.kysely, l)));
    expect(more.filter(Boolean)).toHaveLength(4);
    await finishAttempt(h.ctx.db.kysely, c!, 'released');
    expect(await row(l.key)).toMatchObject({ attempts: 4, in_flight: 4 });
  });

  it('opens a new window once the last one ended; finishing an attempt of the old one changes nothing', async () => {
    const l = limit(1);
    const old = await reserveAttempt(h.ctx.db.kysely, l, Date.now() - 120_000);
    expect(old).not.toBeNull();
    const fresh = await reserveAttempt(h.ctx.db.kysely, l);
    expect(fresh).not.toBeNull();
    expect(await reserveAttempt(h.ctx.db.kysely, l)).toBeNull();
    await finishAttempt(h.ctx.db.kysely, old!, 'cleared');
    expect(await row(l.key)).toMatchObject({ attempts: 1, in_flight: 1 });
  });

  it('prunes counters whose window ended', async () => {
    const ended = limit();
    const open = limit();
    await reserveAttempt(h.ctx.db.kysely, ended, Date.now() - 120_000);
    await reserveAttempt(h.ctx.db.kysely, open);
    await pruneAttemptCounters(h.ctx.db.kysely);
    const keys = (
      await h.ctx.db.kysely
        .selectFrom('attempt_counters')
        .select('key')
        .where('key', 'in', [ended.key, open.key])
        .execute()
    ).map((r) => r.key);
    expect(keys).toEqual([open.key]);
  });
});
