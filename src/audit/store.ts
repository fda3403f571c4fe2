import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Executor } from '../db/engine.js';

export interface AuditRow {
  at: number;
  actor: string;
  action: string;
  target: string | null;
  detail: string;
  address: string | null;
}

export async function insertAuditRow(db: Executor, row: AuditRow): Promise<number> {
  const inserted = await db.insertInto('audit_log').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(inserted.id);
}

/** Rewrites the detail of one entry (a change written in steps: dnc import's count, step by step). */
export async function updateAuditDetail(db: Executor, id: number, detail: string): Promise<void> {
  await db.updateTable('audit_log').set({ detail }).where('id', '=', id).execute();
}

/** Entries at or after `since`, newest first; `actors` (when given) are the actor names that match. */
export async function selectAuditRows(
  db: Executor,
  q: { since: number; actors?: string[]; limit: number; offset?: number },
): Promise<AuditRow[]> {
  let query = db
    .selectFrom('audit_log')
    .select(['at', 'actor', 'action', 'target', 'detail', 'address'])
    .where('at', '>=', q.since);
  if (q.actors) query = query.where('actor', 'in', q.actors);
  const rows = await query
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(q.limit)
    .offset(q.offset ?? 0)
    .execute();
  return rows.map((r) => ({ ...r, at: Number(r.at) }));
}

/** Entries removed per transaction: a batch holds its locks for a few milliseconds. */
export const AUDIT_PRUNE_BATCH = 1000;

/**
 * Audit retention: entries older than AUDIT_KEEP_DAYS (0 keeps them all), oldest first, `batch` per transaction
 * (the index audit_log_at gives each batch in order). Answers how many it removed.
 */
export async function pruneAuditLog(
  ctx: { db: { kysely: Kysely<Database> }; config: { AUDIT_KEEP_DAYS: number } },
  now: number,
  batch = AUDIT_PRUNE_BATCH,
): Promise<number> {
  if (ctx.config.AUDIT_KEEP_DAYS <= 0) return 0;
  const cutoff = now - ctx.config.AUDIT_KEEP_DAYS * 86_400_000;
  let total = 0;
  for (;;) {
    const oldest = await ctx.db.kysely
      .selectFrom('audit_log')
      .select('id')
      .where('at', '<', cutoff)
      .orderBy('at')
      .orderBy('id')
      .limit(batch)
      .execute();
    if (oldest.length === 0) return total;
    const r = await ctx.db.kysely
      .deleteFrom('audit_log')
      .where(
        'id',
        'in',
        oldest.map((o) => Number(o.id)),
      )
      .executeTakeFirst();
    total += Number(r.numDeletedRows);
    if (oldest.length < batch) return total;
    await nextTurn();
  }
}
