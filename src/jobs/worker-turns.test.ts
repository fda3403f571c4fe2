import { afterAll, beforeAll, expect, it } from 'vitest';
import pino from 'pino';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { enqueueMany } from './queue.js';
import { Worker } from './worker.js';

/**
 * A lane that always finds more due jobs must still let the event loop read
 * sockets between its claims. On SQLite every query settles as a microtask,
 * so nothing else would: a burst of jobs froze the process (HTTP requests and
 * SMPP PDUs waited 100 ms and more behind delivery-report jobs).
 */
describeEngines('worker turns', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  it('gives the event loop a turn between claims while due jobs keep coming', async () => {
    const total = 120;
    const concurrency = 4;
    await enqueueMany(
      h.ctx.db.kysely,
      Array.from({ length: total }, (_, n) => ({ kind: 'turns.job', payload: { n } })),
    );
    let ran = 0;
    const w = new Worker(h.ctx.db, { concurrency, pollMs: 60_000, leaseMs: 60_000 }, pino({ level: 'silent' }));
    w.register('test', { kind: 'turns.job', handler: async () => void ran++ });
    // What a socket's callback would see: the jobs started between two turns of the event loop.
    let last = 0;
    let mostPerTurn = 0;
    let ticking = true;
    const tick = () => {
      mostPerTurn = Math.max(mostPerTurn, ran - last);
      last = ran;
      if (ticking) setImmediate(tick);
    };
    w.start();
    setImmediate(tick);
    await eventually(async () => ran === total, 20_000);
    ticking = false;
    await w.stop();
    tick();
    // A turn starts the jobs of one claim at most, and a claim takes at most `concurrency` of them.
    expect(mostPerTurn).toBeLessThanOrEqual(concurrency);
  });
});
