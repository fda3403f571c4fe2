import { isPostgres, type Executor } from '../db/engine.js';
import { compiledOnce } from '../db/prepared.js';

/**
 * Jobs a handler claimed itself beside the one the lane gave it (webhook
 * delivery batches; claimJobs gives every job of one claim the same
 * `locked_by` token).
 * Only the holder of the token may settle or renew them, as with the lane's
 * own jobs, so a batch whose lease ran out changes nothing.
 */
export interface HeldJob {
  id: number;
  lockedBy: string;
}

/**
 * Extends the lease of every job still held under `lockedBy`; the ids renewed. On PostgreSQL a job whose row
 * another transaction holds (the outcome writer settling it) is skipped rather than waited for: waiting, with the
 * writer's transaction taking the same rows in another order, is a deadlock.
 */
export async function renewHeldJobs(
  db: Executor,
  lockedBy: string,
  leaseMs: number,
  now = Date.now(),
): Promise<number[]> {
  const rows = await db
    .updateTable('jobs')
    .set({ locked_until: now + leaseMs })
    .where('locked_by', '=', lockedBy)
    .$if(isPostgres(db), (q) =>
      q.where('id', 'in', (eb) =>
        eb.selectFrom('jobs').select('id').where('locked_by', '=', lockedBy).forUpdate().skipLocked(),
      ),
    )
    .returning('id')
    .execute();
  return rows.map((r) => Number(r.id));
}

/** Removes finished jobs, those of one claim per statement (up to 32 at a time: a claim's size). */
export async function completeHeldJobs(db: Executor, jobs: HeldJob[]): Promise<void> {
  const byToken = new Map<string, number[]>();
  for (const j of jobs) {
    const ids = byToken.get(j.lockedBy);
    if (ids) ids.push(j.id);
    else byToken.set(j.lockedBy, [j.id]);
  }
  for (const [lockedBy, ids] of byToken) {
    for (let i = 0; i < ids.length; i += 32) await deleteHeld(db, lockedBy, ...ids.slice(i, i + 32));
  }
}

/** Compiled once per number of jobs. */
const deleteHeld = compiledOnce((db, lockedBy: string, ...ids: number[]) =>
  db.deleteFrom('jobs').where('id', 'in', ids).where('locked_by', '=', lockedBy),
);

/** Puts a job back in the queue, due at `runAt` (what failJob does for the lane's jobs; a delivery job never runs out of attempts). */
export async function rescheduleHeldJob(db: Executor, job: HeldJob, runAt: number, reason: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ run_at: runAt, locked_until: null, locked_by: null, last_error: reason.slice(0, 2000) })
    .where('id', '=', job.id)
    .where('locked_by', '=', job.lockedBy)
    .execute();
}
