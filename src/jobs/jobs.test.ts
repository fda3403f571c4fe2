import { afterAll, beforeAll, expect, it } from 'vitest';
import pino from 'pino';
import { openDatabase, type Db } from '../db/engine.js';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { bringJobsForward, cancelJobs, claimJobs, completeJob, enqueue, enqueueMany, renewJobLease } from './queue.js';
import { Worker, RetryLater, JOB_SETTLED } from './worker.js';
import { rescheduleHeldJob } from './held-jobs.js';

const silent = pino({ level: 'silent' });

describeEngines('job queue', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  const worker = (db: Db = h.ctx.db, concurrency = 4) =>
    new Worker(db, { concurrency, pollMs: 10, leaseMs: 60_000 }, silent);

  it('never runs a job enqueued in a rolled-back transaction', async () => {
    const ran: string[] = [];
    const w = worker();
    w.register('test', { kind: 'rb.job', handler: async (p) => void ran.push(p.tag) });
    await expect(
      h.ctx.db.kysely.transaction().execute(async (trx) => {
        await enqueue(trx, 'rb.job', { tag: 'rolled-back' });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await h.ctx.db.kysely.transaction().execute((trx) => enqueue(trx, 'rb.job', { tag: 'committed' }));
    w.start();
    await eventually(async () => ran.length === 1);
    await new Promise((r) => setTimeout(r, 100));
    await w.stop();
    expect(ran).toEqual(['committed']);
  });

  it('wakes only the lane of the kinds it is nudged for', async () => {
    const ran: string[] = [];
    const w = new Worker(h.ctx.db, { concurrency: 2, pollMs: 60_000, leaseMs: 60_000 }, silent);
    w.register('lane-a', { kind: 'nudge.a', handler: async () => void ran.push('a') });
    w.register('lane-b', { kind: 'nudge.b', handler: async () => void ran.push('b') });
    // Due after both lanes' first claim at start: then they sleep for a minute.
    const due = Date.now() + 3000;
    await enqueueMany(h.ctx.db.kysely, [
      { kind: 'nudge.a', payload: {}, runAt: due },
      { kind: 'nudge.b', payload: {}, runAt: due },
    ]);
    w.start();
    await new Promise((r) => setTimeout(r, due - Date.now() + 100));
    w.nudge('nudge.a');
    await eventually(async () => ran.length === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(ran).toEqual(['a']);
    w.nudge();
    await eventually(async () => ran.length === 2);
    await w.stop();
    expect(ran).toEqual(['a', 'b']);
  });

  it('starts the next job in a lane whose running job released its place, and still waits for that job to stop', async () => {
    const w = worker(h.ctx.db, 1);
    let finish!: () => void;
    const ran: string[] = [];
    w.register('test', {
      kind: 'release.job',
      handler: async (p: { tag: string }, { release }) => {
        ran.push(`${p.tag}:start`);
        if (p.tag !== 'waits') return;
        release();
        await new Promise<void>((r) => (finish = r));
        ran.push('waits:end');
      },
    });
    await enqueue(h.ctx.db.kysely, 'release.job', { tag: 'waits' });
    w.start();
    await eventually(async () => ran.includes('waits:start'));
    await enqueue(h.ctx.db.kysely, 'release.job', { tag: 'next' });
    w.nudge();
    await eventually(async () => ran.includes('next:start'));
    const stopped = w.stop();
    await new Promise((r) => setTimeout(r, 50));
    expect(ran).not.toContain('waits:end');
    finish();
    await stopped;
    expect(ran).toEqual(['waits:start', 'next:start', 'waits:end']);
  });

  it('runs a scheduled job at its time, not before', async () => {
    const ranAt: number[] = [];
    const w = worker();
    w.register('test', { kind: 'sched.job', handler: async () => void ranAt.push(Date.now()) });
    const runAt = Date.now() + 400;
    await enqueue(h.ctx.db.kysely, 'sched.job', {}, { runAt });
    w.start();
    await eventually(async () => ranAt.length === 1, 5000);
    await w.stop();
    expect(ranAt[0]).toBeGreaterThanOrEqual(runAt);
  });

  it('runs again after its lease a job whose worker died mid-run', async () => {
    await enqueue(h.ctx.db.kysely, 'lease.job', { n: 1 });
    // A worker claims it with a short lease and dies (never completes it).
    const [claimed] = await claimJobs(h.ctx.db, 'dead-worker', ['lease.job'], 1, 1000);
    expect(claimed).toBeDefined();
    expect(await claimJobs(h.ctx.db, 'other', ['lease.job'], 1, 1000)).toHaveLength(0);
    const ran: number[] = [];
    const w = worker();
    w.register('test', { kind: 'lease.job', handler: async (p) => void ran.push(p.n) });
    w.start();
    await eventually(async () => ran.length === 1, 5000);
    await w.stop();
    const left = await h.ctx.db.kysely.selectFrom('jobs').selectAll().where('kind', '=', 'lease.job').execute();
    expect(left).toHaveLength(0);
  });

  it('keeps the lease of a job that runs longer than the lease, so no other worker runs it', async () => {
    const second = await secondConnection(h, engine);
    let runs = 0;
    // The job outlives its lease two and a half times. The lease is long enough
    // that a renewal delayed by a loaded machine (a busy CI runner) still lands
    // before it runs out; a lease of 150 ms failed there once.
    const leaseMs = 1000;
    const handler = async () => {
      runs++;
      await new Promise((r) => setTimeout(r, 2.5 * leaseMs));
    };
    const a = new Worker(h.ctx.db, { concurrency: 1, pollMs: 10, leaseMs }, silent);
    const b = new Worker(second, { concurrency: 1, pollMs: 10, leaseMs }, silent);
    a.register('test', { kind: 'long.job', handler });
    b.register('test', { kind: 'long.job', handler });
    await enqueue(h.ctx.db.kysely, 'long.job', {});
    a.start();
    b.start();
    await eventually(
      async () =>
        runs === 1 &&
        (await h.ctx.db.kysely.selectFrom('jobs').select('id').where('kind', '=', 'long.job').execute()).length === 0,
      10_000,
    );
    await Promise.all([a.stop(), b.stop()]);
    if (second !== h.ctx.db) await second.close();
    expect(runs).toBe(1);
  });

  it('gives each run its own identity: a run whose lease ran out cannot renew or delete the next run of the job', async () => {
    await enqueue(h.ctx.db.kysely, 'ident.job', {});
    const [first] = await claimJobs(h.ctx.db, 'same-worker', ['ident.job'], 1, 100);
    await new Promise((r) => setTimeout(r, 150));
    const [second] = await claimJobs(h.ctx.db, 'same-worker', ['ident.job'], 1, 60_000);
    expect(second.id).toBe(first.id);
    expect(second.locked_by).not.toBe(first.locked_by);
    expect(await renewJobLease(h.ctx.db.kysely, first, 60_000)).toBe(false);
    await completeJob(h.ctx.db.kysely, first);
    expect(
      await h.ctx.db.kysely.selectFrom('jobs').select('id').where('id', '=', first.id).executeTakeFirst(),
    ).toBeDefined();
    expect(await renewJobLease(h.ctx.db.kysely, second, 60_000)).toBe(true);
    await completeJob(h.ctx.db.kysely, second);
    expect(
      await h.ctx.db.kysely.selectFrom('jobs').select('id').where('id', '=', first.id).executeTakeFirst(),
    ).toBeUndefined();
  });

  it('retries a failing job with backoff and marks it failed when attempts run out', async () => {
    let calls = 0;
    const w = worker();
    w.register('test', {
      kind: 'flaky.job',
      handler: async () => {
        calls++;
        throw new Error(`boom ${calls}`);
      },
      backoffMs: () => 30,
    });
    await enqueue(h.ctx.db.kysely, 'flaky.job', {}, { maxAttempts: 3 });
    w.start();
    const failed = await eventually(async () =>
      h.ctx.db.kysely
        .selectFrom('jobs')
        .selectAll()
        .where('kind', '=', 'flaky.job')
        .where('state', '=', 'failed')
        .executeTakeFirst(),
    );
    await w.stop();
    expect(calls).toBe(3);
    expect(failed.attempts).toBe(3);
    expect(failed.last_error).toBe('boom 3');
  });

  it('honours RetryLater and succeeds on a later attempt', async () => {
    let calls = 0;
    const w = worker();
    w.register('test', {
      kind: 'later.job',
      handler: async () => {
        if (++calls < 2) throw new RetryLater(50);
      },
    });
    await enqueue(h.ctx.db.kysely, 'later.job', {});
    w.start();
    await eventually(
      async () =>
        (await h.ctx.db.kysely.selectFrom('jobs').select('id').where('kind', '=', 'later.job').execute()).length ===
          0 && calls === 2,
    );
    await w.stop();
  });

  it('writes nothing more for a job its handler settled itself', async () => {
    // The lane's deletes, counted (its claims are updates, as a failure would be: the row shows those).
    let deletes = 0;
    const kysely = h.ctx.db.kysely;
    const counted = new Proxy(kysely, {
      get(target, key) {
        if (key === 'deleteFrom') return (table: 'jobs') => (deletes++, target.deleteFrom(table));
        const value = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const w = worker({ ...h.ctx.db, kysely: counted });
    const runAt = Date.now() + 60_000;
    let settledBy = 0;
    w.register('test', {
      kind: 'settled.job',
      handler: async (_p, { job }) => {
        await rescheduleHeldJob(
          kysely,
          { id: Number(job.id), lockedBy: job.locked_by! },
          runAt,
          'put back by its handler',
        );
        settledBy++;
        return JOB_SETTLED;
      },
    });
    await enqueue(kysely, 'settled.job', {});
    w.start();
    await eventually(async () => settledBy === 1);
    await new Promise((r) => setTimeout(r, 100));
    await w.stop();
    const [row] = await kysely.selectFrom('jobs').selectAll().where('kind', '=', 'settled.job').execute();
    expect(row).toMatchObject({ run_at: runAt, locked_by: null, last_error: 'put back by its handler' });
    expect(deletes).toBe(0);
  });

  it('ignores a second job with the same unique key', async () => {
    await enqueue(h.ctx.db.kysely, 'uniq.job', { a: 1 }, { uniqueKey: 'once', runAt: Date.now() + 60_000 });
    await enqueue(h.ctx.db.kysely, 'uniq.job', { a: 2 }, { uniqueKey: 'once', runAt: Date.now() + 60_000 });
    const rows = await h.ctx.db.kysely.selectFrom('jobs').selectAll().where('kind', '=', 'uniq.job').execute();
    expect(rows).toHaveLength(1);
  });

  it('cancels jobs by kind and unique key, leaving other kinds with the same key alone', async () => {
    const later = Date.now() + 60_000;
    await enqueueMany(h.ctx.db.kysely, [
      { kind: 'cancel.a', payload: {}, uniqueKey: 'cancel-1', runAt: later },
      { kind: 'cancel.a', payload: {}, uniqueKey: 'cancel-2', runAt: later },
      { kind: 'cancel.b', payload: {}, uniqueKey: 'cancel-3', runAt: later },
    ]);
    await cancelJobs(h.ctx.db.kysely, 'cancel.a', ['cancel-1', 'cancel-3']);
    const left = await h.ctx.db.kysely
      .selectFrom('jobs')
      .select('unique_key')
      .where('kind', 'in', ['cancel.a', 'cancel.b'])
      .orderBy('unique_key')
      .execute();
    expect(left.map((r) => r.unique_key)).toEqual(['cancel-2', 'cancel-3']);
  });

  it('brings pending, unheld jobs forward, never later and never a held one', async () => {
    const now = Date.now();
    await enqueueMany(h.ctx.db.kysely, [
      { kind: 'forward.job', payload: {}, uniqueKey: 'forward-late', runAt: now + 60_000 },
      { kind: 'forward.job', payload: {}, uniqueKey: 'forward-soon', runAt: now + 1_000 },
      { kind: 'forward.job', payload: {}, uniqueKey: 'forward-held', runAt: now + 60_000 },
    ]);
    await h.ctx.db.kysely
      .updateTable('jobs')
      .set({ locked_by: 'someone' })
      .where('unique_key', '=', 'forward-held')
      .execute();
    await bringJobsForward(
      h.ctx.db.kysely,
      'forward.job',
      ['forward-late', 'forward-soon', 'forward-held'],
      now + 5_000,
    );
    const rows = await h.ctx.db.kysely
      .selectFrom('jobs')
      .select(['unique_key', 'run_at'])
      .where('kind', '=', 'forward.job')
      .execute();
    const runAt = Object.fromEntries(rows.map((r) => [r.unique_key, Number(r.run_at)]));
    expect(runAt).toEqual({ 'forward-late': now + 5_000, 'forward-soon': now + 1_000, 'forward-held': now + 60_000 });
  });

  it('finishes in-flight jobs on stop and claims nothing after', async () => {
    let finished = 0;
    const w = worker();
    w.register('test', {
      kind: 'slow.job',
      handler: async () => {
        await new Promise((r) => setTimeout(r, 150));
        finished++;
      },
    });
    await enqueue(h.ctx.db.kysely, 'slow.job', {});
    w.start();
    await eventually(
      async () =>
        (await h.ctx.db.kysely.selectFrom('jobs').select('locked_by').where('kind', '=', 'slow.job').executeTakeFirst())
          ?.locked_by,
    );
    await enqueue(h.ctx.db.kysely, 'slow.job', {}, { runAt: Date.now() + 50 });
    await w.stop();
    expect(finished).toBe(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(finished).toBe(1);
  });

  it('never runs a job twice with two workers on separate connections', async () => {
    const second = await secondConnection(h, engine);
    const counts = new Map<number, number>();
    const handler = async (p: { n: number }) => {
      counts.set(p.n, (counts.get(p.n) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 1));
    };
    const total = 300;
    await enqueueMany(
      h.ctx.db.kysely,
      Array.from({ length: total }, (_, n) => ({ kind: 'race.job', payload: { n } })),
    );
    const a = worker(h.ctx.db, 8);
    const b = worker(second, 8);
    a.register('test', { kind: 'race.job', handler });
    b.register('test', { kind: 'race.job', handler });
    a.start();
    b.start();
    await eventually(async () => counts.size === total, 20_000);
    await Promise.all([a.stop(), b.stop()]);
    if (second !== h.ctx.db) await second.close();
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
  });
});

/** A second connection pool on PostgreSQL (as another process would have); SQLite has one writer, so the same Db. */
async function secondConnection(h: Harness, engine: string): Promise<Db> {
  return engine === 'postgres'
    ? openDatabase(process.env.TEST_DATABASE_URL!, { pgSchema: await currentSchema(h) })
    : h.ctx.db;
}

async function currentSchema(h: Harness): Promise<string> {
  const { sql } = await import('kysely');
  const r = await sql<{ s: string }>`select current_schema() as s`.execute(h.ctx.db.kysely);
  return r.rows[0].s;
}
