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
