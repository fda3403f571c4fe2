import type { Executor } from '../db/engine.js';

const EVALUATOR = 'evaluator';

/**
 * The evaluator's lease: taken by an upsert that succeeds only when it is
 * free, expired, or already this holder's, and kept by taking it again at
 * every check. Returns null when another process holds it; else when the
 * last check of any holder finished (null before the first).
 */
export async function takeEvaluatorLease(
  db: Executor,
  holder: string,
  leaseMs: number,
): Promise<{ checkedAt: number | null } | null> {
  const now = Date.now();
  const row = await db
    .insertInto('alert_leases')
    .values({ name: EVALUATOR, holder, expires_at: now + leaseMs, checked_at: null })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet({ holder, expires_at: now + leaseMs })
        .where((eb) => eb.or([eb('alert_leases.holder', '=', holder), eb('alert_leases.expires_at', '<', now)])),
    )
    .returning('checked_at')
    .executeTakeFirst();
  return row ? { checkedAt: row.checked_at === null ? null : Number(row.checked_at) } : null;
}

/** Records a finished check; only while this holder still holds the lease. */
export async function markChecked(db: Executor, holder: string, at: number): Promise<void> {
  await db
    .updateTable('alert_leases')
    .set({ checked_at: at })
    .where('name', '=', EVALUATOR)
    .where('holder', '=', holder)
    .execute();
}

/** Lets another process take over at once (a stopping holder). */
export async function releaseEvaluatorLease(db: Executor, holder: string): Promise<void> {
  await db.deleteFrom('alert_leases').where('name', '=', EVALUATOR).where('holder', '=', holder).execute();
}
