import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../db/engine.js';
import { Fence } from '../lib/fence.js';
import { claimJobs, completeJob, failJob, renewJobLease, type JobRow } from './queue.js';

export interface JobContext {
  db: Db;
  job: JobRow;
  log: Logger;
  /**
   * Aborted when this run lost its lease (the heartbeat could not renew it
   * for a whole lease, or another run took the job): stop starting new work.
   */
  signal: AbortSignal;
  /**
   * Frees this run's place in its lane while it keeps running (and holding its lease): it only waits now, on work
   * others order (a carrier's line), and jobs behind it may start. Once per run; later calls do nothing.
   */
  release(): void;
}

/**
 * What a handler returns when it settled its job row itself (deleted it, or
 * put it back with its next run) under the job's `locked_by`, inside a
 * transaction of its own work: the lane then writes nothing more.
 */
export const JOB_SETTLED = Symbol('job settled');

export type JobHandler = (payload: any, ctx: JobContext) => Promise<void | typeof JOB_SETTLED>;

export interface JobDefinition {
  kind: string;
  handler: JobHandler;
  /** Delay before retry number `attempt` (1-based); default exponential from 1 s, capped at 10 min, with jitter. */
  backoffMs?: (attempt: number) => number;
}

/** Throw from a handler to retry at a chosen time without counting it as an error in logs. */
export class RetryLater extends Error {
  constructor(
    readonly delayMs: number,
    reason = 'retry later',
  ) {
    super(reason);
  }
}

export const defaultBackoff = (attempt: number): number => {
  const base = Math.min(1000 * 2 ** (attempt - 1), 600_000);
  return Math.round(base * (0.75 + Math.random() * 0.5));
};

export interface LaneOptions {
  /** Jobs run at once in this lane. */
  concurrency: number;
  pollMs: number;
  leaseMs: number;
}

/**
 * The most runs of a lane that released their place, per place of its concurrency: their leases are renewed like the
 * others', so a lane with thousands of due campaigns does not run them all at once.
 */
const RELEASED_PER_PLACE = 250;

/**
 * One claim loop over a set of job kinds. Lanes are independent, so slow work
 * in one (a dead webhook receiver) never delays another (SMS dispatch).
 */
class Lane {
  private running = 0;
  /** Runs that released their place (JobContext.release) and still run. */
  private released = 0;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;
  private nudged = false;
  /** Whether the last claim may have left due jobs behind (it took every free slot, or there was none). */
  private full = false;
  private readonly inFlight = new Set<Promise<void>>();
  private loopDone: Promise<void> | null = null;

  constructor(
    readonly name: string,
    private readonly db: Db,
    private readonly workerId: string,
    private readonly defs: Map<string, JobDefinition>,
    private readonly opts: LaneOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.loopDone = this.loop();
  }

  /** Claims again now; a nudge that comes while the lane is claiming makes it claim once more instead of sleeping. */
  nudge(): void {
    if (this.wake) this.wake();
    else this.nudged = true;
  }

  private async loop(): Promise<void> {
    const kinds = [...this.defs.keys()];
    while (!this.stopped) {
      // On SQLite every query settles as a microtask: without a turn of the event loop here, a lane whose jobs keep
      // coming (each finishing one nudges the next claim) would claim and run them back to back, and no socket
      // would be read meanwhile.
      await new Promise<void>((resolve) => setImmediate(resolve));
      // Released runs (waiting on a carrier's line) leave their place, up to RELEASED_PER_PLACE of them a place.
      const free = Math.min(
        this.opts.concurrency - this.running,
        this.opts.concurrency * RELEASED_PER_PLACE - this.running - this.released,
      );
      let claimed: JobRow[] = [];
      if (free > 0) {
        try {
          claimed = await claimJobs(this.db, this.workerId, kinds, free, this.opts.leaseMs);
        } catch (err) {
          if (!this.stopped) this.log.error({ err, lane: this.name }, 'claiming jobs failed');
        }
      }
      this.full = free <= 0 || claimed.length === free;
      for (const job of claimed) this.run(job);
      if (claimed.length === 0 || claimed.length < free) await this.sleep(this.opts.pollMs);
      else if (this.running >= this.opts.concurrency) await this.sleep(this.opts.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.nudged) {
      this.nudged = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.wake = () => {
        if (this.timer) clearTimeout(this.timer);
        this.wake = null;
        resolve();
      };
      this.timer = setTimeout(() => this.wake?.(), ms);
    });
  }

  private run(job: JobRow): void {
    this.running++;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      this.running--;
      this.released++;
      this.nudge();
    };
    const p = this.execute(job, release).finally(() => {
      if (held) this.running--;
      else this.released--;
      held = false;
      this.inFlight.delete(p);
      // A freed slot claims at once only when jobs may be waiting for it; else the poll and nudges find new ones.
      if (this.full) this.nudge();
    });
    this.inFlight.add(p);
  }

  /**
   * Renews the job's lease every third of a lease while it runs, so a job that
   * waits (a slow carrier, pacing) is never taken over by another run while
   * this one is alive. Aborts `lost` when another run took the job, or when
   * the fence of its lease closes (src/lib/fence.ts: two thirds of a lease
   * after the last renewal that took effect), before any other process may
   * take the job: a run cut off from the database stops on its own.
   */
  private heartbeat(job: JobRow, lost: AbortController): () => void {
    const leaseMs = this.opts.leaseMs;
    const fence = new Fence(leaseMs, Number(job.locked_until) - leaseMs);
    let busy = false;
    const renew = async () => {
      if (busy || lost.signal.aborted) return;
      busy = true;
      const sentAt = Date.now();
      try {
        if (await renewJobLease(this.db.kysely, job, leaseMs, sentAt)) fence.renewed(sentAt);
        else lost.abort(new Error('the job lease was taken over'));
      } catch (err) {
        this.log.warn({ err, jobId: job.id }, 'renewing a job lease failed');
      } finally {
        busy = false;
      }
    };
    const renewals = setInterval(() => void renew(), Math.max(Math.floor(leaseMs / 3), 10));
    const watch = setInterval(
      () => {
        if (!fence.valid && !lost.signal.aborted) lost.abort(new Error('the job lease could not be renewed'));
      },
      Math.max(Math.floor(leaseMs / 12), 10),
    );
    return () => {
      clearInterval(renewals);
      clearInterval(watch);
    };
  }

  private async execute(job: JobRow, release: () => void): Promise<void> {
    const def = this.defs.get(job.kind)!;
    const lost = new AbortController();
    const stopHeartbeat = this.heartbeat(job, lost);
    try {
      const result = await def.handler(JSON.parse(job.payload), {
        db: this.db,
        job,
        log: this.log,
        signal: lost.signal,
        release,
      });
      stopHeartbeat();
      if (result !== JOB_SETTLED) await completeJob(this.db.kysely, job);
    } catch (err) {
      stopHeartbeat();
      const retryIn = err instanceof RetryLater ? err.delayMs : (def.backoffMs ?? defaultBackoff)(job.attempts);
      if (!(err instanceof RetryLater))
        this.log.warn({ err, job: { id: job.id, kind: job.kind, attempts: job.attempts } }, 'job failed');
      try {
        await failJob(this.db.kysely, job, (err as Error)?.message ?? String(err), Date.now() + retryIn);
      } catch (e) {
        this.log.error(
          { err: e, jobId: job.id },
          'recording a job failure failed; its lease will expire and it runs again',
        );
      }
    }
  }

  /** Stops claiming, then waits for the jobs in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.nudge();
    await this.loopDone;
    await Promise.allSettled([...this.inFlight]);
  }
}

/**
 * The worker of `mensajero serve`: lanes of job kinds, each with its own
 * concurrency. Features register their jobs before start().
 */
export class Worker {
  readonly id = `${process.pid}-${randomUUID().slice(0, 8)}`;
  private readonly lanes = new Map<string, { defs: Map<string, JobDefinition>; concurrency?: number }>();
  private readonly started: Lane[] = [];
  private readonly kindToLane = new Map<string, string>();
  private readonly background = new Set<Promise<unknown>>();

  constructor(
    private readonly db: Db,
    private readonly defaults: LaneOptions,
    private readonly log: Logger,
  ) {}

  register(lane: string, def: JobDefinition, laneConcurrency?: number): void {
    const entry = this.lanes.get(lane) ?? { defs: new Map(), concurrency: laneConcurrency };
    if (laneConcurrency !== undefined) entry.concurrency = laneConcurrency;
    entry.defs.set(def.kind, def);
    this.lanes.set(lane, entry);
    this.kindToLane.set(def.kind, lane);
  }

  start(): void {
    for (const [name, { defs, concurrency }] of this.lanes) {
      const lane = new Lane(
        name,
        this.db,
        this.id,
        defs,
        { ...this.defaults, concurrency: concurrency ?? this.defaults.concurrency },
        this.log,
      );
      lane.start();
      this.started.push(lane);
    }
  }

  /**
   * Wakes now the lanes that run these job kinds, or every lane without
   * kinds (call after committing a transaction that enqueued due work).
   * Each lane woken runs a claim query: wake only those with work.
   */
  nudge(...kinds: string[]): void {
    const names = new Set(kinds.map((k) => this.kindToLane.get(k)));
    for (const lane of this.started) if (kinds.length === 0 || names.has(lane.name)) lane.nudge();
  }

  /** Whether this process runs its lanes (start() and not yet stop()). */
  get running(): boolean {
    return this.started.length > 0;
  }

  /** Work started outside the lanes (an inline dispatch round) that stop() waits for. */
  track(work: Promise<unknown>): void {
    const p = work.catch(() => {}).finally(() => this.background.delete(p));
    this.background.add(p);
  }

  async stop(): Promise<void> {
    await Promise.all(this.started.map((l) => l.stop()));
    this.started.length = 0;
    while (this.background.size > 0) await Promise.all([...this.background]);
  }
}
