import { sql } from 'kysely';
import type { Executor } from '../db/engine.js';
import { toCredits } from './credits.js';
import { shownEmail } from './subaccount-email.js';

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

/** Accounts a page holds (`accounts list`, `GET /operator/v1/accounts`). */
export const ACCOUNTS_PAGE_SIZE = 100;

/** The longest search text: an email is at most 254 characters. */
export const MAX_ACCOUNT_SEARCH = 254;

/** One account as `accounts list` and the operator API list it: a sub-account by the email its holder wrote. */
export interface AccountListing {
  id: number;
  email: string;
  credits: number;
  status: 'active' | 'archived';
  parent_id: number | null;
}

/** An account row as `accounts list` and the operator API show it. */
export function accountListing(r: {
  id: number;
  email: string;
  credits: number;
  status: string;
  parent_id: number | null;
}): AccountListing {
  return {
    id: Number(r.id),
    email: shownEmail(r.email),
    credits: toCredits(Number(r.credits)),
    status: r.status === 'archived' ? 'archived' : 'active',
    parent_id: r.parent_id === null ? null : Number(r.parent_id),
  };
}

export interface AccountPage {
  accounts: AccountListing[];
  page: number;
  has_more: boolean;
}

/**
 * One page of accounts in id order (pages from 1, ACCOUNTS_PAGE_SIZE a page),
 * those whose email contains `search` (any case; `%` and `_` are plain
 * characters) when given. The caller bounds `page` and `search`.
 */
export async function listAccounts(db: Executor, q: { search?: string; page: number }): Promise<AccountPage> {
  let query = db.selectFrom('accounts').select(['id', 'email', 'credits', 'status', 'parent_id']);
  if (q.search) {
    const pattern = `%${q.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where(sql<boolean>`accounts.email like ${pattern} escape '\\'`);
  }
  const rows = await query
    .orderBy('id')
    .limit(ACCOUNTS_PAGE_SIZE + 1)
    .offset((q.page - 1) * ACCOUNTS_PAGE_SIZE)
    .execute();
  return {
    accounts: rows.slice(0, ACCOUNTS_PAGE_SIZE).map(accountListing),
    page: q.page,
    has_more: rows.length > ACCOUNTS_PAGE_SIZE,
  };
}

/** The shown emails of these accounts, by id (a sub-account by the email its holder wrote). */
export async function emailsByIds(db: Executor, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('accounts')
    .select(['id', 'email'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((r) => [Number(r.id), shownEmail(r.email)]));
}

/** The ids of an account's sub-accounts. */
export async function subaccountIds(db: Executor, parentId: number): Promise<number[]> {
  const rows = await db.selectFrom('accounts').select('id').where('parent_id', '=', parentId).execute();
  return rows.map((r) => Number(r.id));
}

/** A parent's sub-accounts, newest first. */
export function subaccountRows(db: Executor, parentId: number, limit: number) {
  return db
    .selectFrom('accounts')
    .select(['id', 'email', 'credits', 'status'])
    .where('parent_id', '=', parentId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
