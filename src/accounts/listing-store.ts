import type { Executor } from '../db/engine.js';

export interface AccountRow {
  id: number;
  email: string;
  credits: number;
  status: string;
  parent_email: string | null;
  parent_id: number | null;
  created_at: number;
}

/** Accounts whose email contains `search` (all when empty), newest first; `offset` skips that many (pages). */
export async function searchAccounts(db: Executor, search: string, limit = 100, offset = 0): Promise<AccountRow[]> {
  let query = db
    .selectFrom('accounts')
    .leftJoin('accounts as parent', 'parent.id', 'accounts.parent_id')
    .select([
      'accounts.id',
      'accounts.email',
      'accounts.credits',
      'accounts.status',
      'parent.email as parent_email',
      'accounts.parent_id',
      'accounts.created_at',
    ]);
  if (search !== '') {
    const escaped = search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
    query = query.where('accounts.email', 'like', `%${escaped}%`);
  }
  const rows = await query.orderBy('accounts.id', 'desc').limit(limit).offset(offset).execute();
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    credits: Number(r.credits),
    parent_id: r.parent_id === null ? null : Number(r.parent_id),
    created_at: Number(r.created_at),
  }));
}

/** The credits (units) of all active accounts together. */
export async function totalBalance(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.sum<number>('credits').as('total'))
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}
