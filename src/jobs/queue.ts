import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { affected, isPostgres, type Db, type Executor } from '../db/engine.js';
import { compiledOnce, prepared } from '../db/prepared.js';
import type { JobsTable } from './tables.js';
import type { Selectable } from 'kysely';

export type JobRow = Selectable<JobsTable>;

export interface EnqueueOptions {
  /** When the job becomes due (epoch ms); default now. */
  runAt?: number;
  maxAttempts?: number;
  /** At most one job with this key ever exists: a second enqueue is ignored. */
  uniqueKey?: string;
}

/**
 * Adds a job inside the caller's transaction: it exists only if that
 * transaction commits. `payload` is stored as JSON.
 */
export async function enqueue(db: Executor, kind: string, payload: unknown, opts: EnqueueOptions = {}): Promise<void> {
  const now = Date.now();
  await insertJob(
    db,
    kind,
    JSON.stringify(payload ?? null),
    opts.runAt ?? now,
    opts.maxAttempts ?? 10,
    opts.uniqueKey ?? null,
    now,
  );
}

/** One job: every send enqueues one, so its statement is compiled once. */
const insertJob = compiledOnce(
  (db, kind: string, payload: string, runAt: number, maxAttempts: number, uniqueKey: string | null, now: number) =>
    db
      .insertInto('jobs')
      .values({
        kind,
        payload,
        run_at: runAt,
        max_attempts: maxAttempts,
        locked_until: null,
        locked_by: null,
        last_error: null,
        unique_key: uniqueKey,
        created_at: now,
      })
      .onConflict((oc) => oc.column('unique_key').doNothing()),
);

export async function enqueueMany(
  db: Executor,
  jobs: Array<{ kind: string; payload: unknown } & EnqueueOptions>,
): Promise<void> {
  if (jobs.length === 0) return;
  const now = Date.now();
  const rows = jobs.map((j) => ({
    kind: j.kind,
    payload: JSON.stringify(j.payload ?? null),
    run_at: j.runAt ?? now,
    max_attempts: j.maxAttempts ?? 10,
    locked_until: null,
    locked_by: null,
    last_error: null,
    unique_key: j.uniqueKey ?? null,
    created_at: now,
  }));
  // Chunks keep each statement under SQLite's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('jobs')
      .values(rows.slice(i, i + 500))
      .onConflict((oc) => oc.column('unique_key').doNothing())
      .execute();
  }
}

/**
 * Removes the jobs of `kind` with these unique keys, whatever their state:
 * work that is no longer needed (a safety net whose messages went out) or
 * a job about to be replaced by a fresh one.
 */
export async function cancelJobs(db: Executor, kind: string, uniqueKeys: string[]): Promise<void> {
  for (let i = 0; i < uniqueKeys.length; i += 500) {
    await db
      .deleteFrom('jobs')
      .where('kind', '=', kind)
      .where('unique_key', 'in', uniqueKeys.slice(i, i + 500))
      .execute();
  }
}

/**
 * Makes the pending jobs of `kind` with these unique keys due at `runAt` when
 * they were due later. A job a worker holds is left alone: its run decides.
 */
export async function bringJobsForward(db: Executor, kind: string, uniqueKeys: string[], runAt: number): Promise<void> {
  for (let i = 0; i < uniqueKeys.length; i += 500) {
    await db
      .updateTable('jobs')
      .set({ run_at: runAt })
      .where('kind', '=', kind)
      .where('state', '=', 'pending')
      .where('unique_key', 'in', uniqueKeys.slice(i, i + 500))
      .where('run_at', '>', runAt)
      .where('locked_by', 'is', null)
      .execute();
  }
}

/**
 * Claims up to `limit` due jobs of the given kinds for `workerId` with a lease
 * of `leaseMs`. A job whose lease ran out (its worker died) is due again.
 * Each claim writes a fresh token into `locked_by` (worker id + random part):
 * it names this run of the job, so a run whose lease ran out can neither
 * renew, complete nor reschedule the run that took the job over, even in the
 * same process.
 * PostgreSQL: FOR UPDATE SKIP LOCKED lets many processes share the queue.
 * SQLite: the single UPDATE … RETURNING is atomic under the one writer.
 */
export async function claimJobs(
  db: Db,
  workerId: string,
  kinds: string[],
  limit: number,
  leaseMs: number,
): Promise<JobRow[]> {
  const now = Date.now();
  const { rows } = await claimStatement(kinds.length, limit)(db.kysely, {
    kinds,
    now,
    lockedUntil: now + leaseMs,
    lockedBy: `${workerId}/${randomUUID()}`,
  });
  return rows;
}

type ClaimParams = { kinds: string[]; now: number; lockedUntil: number; lockedBy: string };

/**
 * Every lane claims on each poll and nudge: the statement is built once per
 * number of kinds and limit (a lane's concurrency bounds both), its LIMIT a
 * literal (InlineLimitPlugin).
 */
const claimStatements = new Map<string, ReturnType<typeof prepared<ClaimParams, JobRow>>>();

function claimStatement(kindCount: number, limit: number) {
  const shape = `${kindCount}:${limit}`;
  let statement = claimStatements.get(shape);
  if (!statement) {
    statement = prepared<ClaimParams, JobRow>((db, slot) => {
      const kinds = Array.from({ length: kindCount }, (_, i) => slot(`kind${i}`));
      const due = db
        .selectFrom('jobs')
        .select('id')
        .where('state', '=', 'pending')
        .where('kind', 'in', kinds)
        .where('run_at', '<=', slot('now'))
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', slot('now'))]))
        .orderBy('run_at')
        .limit(limit);
      return db
        .updateTable('jobs')
        .set({ locked_until: slot('lockedUntil'), locked_by: slot('lockedBy'), attempts: sql`attempts + 1` })
        .where('id', 'in', isPostgres(db) ? due.forUpdate().skipLocked() : due)
        .returningAll();
    });
    claimStatements.set(shape, statement);
  }
  return (db: Executor, p: ClaimParams) =>
    statement(db, { ...p, ...Object.fromEntries(p.kinds.map((kind, i) => [`kind${i}`, kind])) });
}

/** Extends a running job's lease; false when this run no longer holds it (it ran out and another run took the job). */
export async function renewJobLease(db: Executor, job: JobRow, leaseMs: number, now = Date.now()): Promise<boolean> {
  return (
    affected(
      await db
        .updateTable('jobs')
        .set({ locked_until: now + leaseMs })
        .where('id', '=', job.id)
        .where('locked_by', '=', job.locked_by)
        .execute(),
    ) > 0
  );
}

/** Removes a finished job; only its current lease holder may. */
export async function completeJob(db: Executor, job: JobRow): Promise<void> {
  await db.deleteFrom('jobs').where('id', '=', job.id).where('locked_by', '=', job.locked_by).execute();
}

/** Schedules a retry at `retryAt`, or marks the job failed when it has no attempts left. */
export async function failJob(db: Executor, job: JobRow, error: string, retryAt: number | null): Promise<void> {
  const last_error = error.slice(0, 2000);
  const exhausted = retryAt === null || job.attempts >= job.max_attempts;
  await db
    .updateTable('jobs')
    .set(
      exhausted
        ? { state: 'failed', locked_until: null, locked_by: null, last_error }
        : { run_at: retryAt, locked_until: null, locked_by: null, last_error },
    )
    .where('id', '=', job.id)
    .where('locked_by', '=', job.locked_by)
    .execute();
}

/** Queue depth and the age of the oldest due job, for metrics. */
export async function queueStats(
  db: Db,
): Promise<Array<{ kind: string; state: string; count: number; oldest_run_at: number | null }>> {
  const rows = await db.kysely
    .selectFrom('jobs')
    .select([
      'kind',
      'state',
      (eb) => eb.fn.countAll<number>().as('count'),
      (eb) => eb.fn.min('run_at').as('oldest_run_at'),
    ])
    .groupBy(['kind', 'state'])
    .execute();
  return rows.map((r) => ({
    kind: r.kind,
    state: r.state,
    count: Number(r.count),
    oldest_run_at: r.oldest_run_at === null ? null : Number(r.oldest_run_at),
  }));
}
