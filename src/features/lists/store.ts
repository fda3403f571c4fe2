import { sql } from 'kysely';
import type { Executor } from '../../db/engine.js';
import { listNameKey, type ContactList } from '../contacts/service.js';

/** Every list of the account, ordered by name (case-insensitive), then by creation. */
export async function listsOfAccount(db: Executor, accountId: number): Promise<ContactList[]> {
  return db
    .selectFrom('contact_lists')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('name_key')
    .orderBy('id')
    .execute();
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** One page of the account's lists whose name contains `query` (case-insensitive), and how many match in all. */
export async function searchLists(db: Executor, accountId: number, query: string, limit: number, offset: number) {
  const pattern = `%${likeEscape(listNameKey(query))}%`;
  const base = db
    .selectFrom('contact_lists')
    .where('account_id', '=', accountId)
    .where(sql<boolean>`name_key like ${pattern} escape '\\'`);
  const [{ total }] = await base.select((eb) => eb.fn.countAll<number | string>().as('total')).execute();
  const rows = await base
    .select(['id', 'name', 'list_key'])
    .orderBy('name_key')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute();
  return { rows, total: Number(total) };
}

/** The next `limit` contacts of a list after id `afterId`, by id (keyset pagination on the (list_id, id) index). */
export async function contactsAfter(db: Executor, listId: number, afterId: number, limit: number) {
  return db
    .selectFrom('contacts')
    .select(['id', 'name', 'number', 'email', 'created_at'])
    .where('list_id', '=', listId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}
