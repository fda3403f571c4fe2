import { sql } from 'kysely';
import { affected, isPostgres, type Executor } from '../../db/engine.js';
import { listNameKey, logListDeletion, type ContactList } from '../contacts/store.js';

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

/** Renames a list the account owns and no program owns (one conditional UPDATE); false when no such list. Throws on a name clash. */
export async function renameList(db: Executor, accountId: number, listId: number, name: string): Promise<boolean> {
  const result = await db
    .updateTable('contact_lists')
    .set({ name, name_key: listNameKey(name) })
    .where('id', '=', listId)
    .where('account_id', '=', accountId)
    .where('linked_tool', 'is', null)
    .executeTakeFirst();
  return affected(result) === 1;
}

/**
 * Deletes a list and its contacts, logging a 'deleted' change for each; false
 * when the list is already gone. Call inside a transaction. On PostgreSQL the
 * list row is locked first, so no contact can be added to it meanwhile
 * (inserting one needs a share lock on that row).
 */
export async function deleteListWithContacts(trx: Executor, listId: number): Promise<boolean> {
  let lock = trx.selectFrom('contact_lists').select('id').where('id', '=', listId).where('linked_tool', 'is', null);
  if (isPostgres(trx)) lock = lock.forUpdate();
  if (!(await lock.executeTakeFirst())) return false;
  await logListDeletion(trx, listId);
  await trx.deleteFrom('contacts').where('list_id', '=', listId).execute();
  await trx.deleteFrom('contact_lists').where('id', '=', listId).execute();
  return true;
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
