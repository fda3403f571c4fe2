import type { Executor } from '../../db/engine.js';
import type { FilterAction } from '../../messaging/send-rules-tables.js';

/** A filter with its account's email (null: the deployment's). */
export interface FilterRow {
  id: number;
  account_id: number | null;
  email: string | null;
  action: FilterAction;
  word: string | null;
  domain: string | null;
}

export async function selectFilters(db: Executor): Promise<FilterRow[]> {
  const rows = await db
    .selectFrom('content_filters')
    .leftJoin('accounts', 'accounts.id', 'content_filters.account_id')
    .select([
      'content_filters.id',
      'content_filters.account_id',
      'accounts.email',
      'content_filters.action',
      'content_filters.word',
      'content_filters.domain',
    ])
    .orderBy('content_filters.id')
    .execute();
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    account_id: r.account_id === null ? null : Number(r.account_id),
    email: r.email ?? null,
  }));
}

export async function countFilters(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('content_filters')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The id of a filter with the same scope, action and word or domain, if there is one. */
export async function sameFilter(
  db: Executor,
  f: { account_id: number | null; action: FilterAction; word: string | null; domain: string | null },
): Promise<number | undefined> {
  let q = db.selectFrom('content_filters').select('id').where('action', '=', f.action);
  q = f.account_id === null ? q.where('account_id', 'is', null) : q.where('account_id', '=', f.account_id);
  q = f.word === null ? q.where('word', 'is', null) : q.where('word', '=', f.word);
  q = f.domain === null ? q.where('domain', 'is', null) : q.where('domain', '=', f.domain);
  const row = await q.executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

export async function insertFilter(
  db: Executor,
  f: { account_id: number | null; action: FilterAction; word: string | null; domain: string | null },
  now: number,
): Promise<number> {
  const row = await db
    .insertInto('content_filters')
    .values({ ...f, created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function deleteFilter(db: Executor, id: number): Promise<FilterRow | undefined> {
  const row = (await selectFilters(db)).find((f) => f.id === id);
  if (!row) return undefined;
  await db.deleteFrom('content_filters').where('id', '=', id).execute();
  return row;
}
