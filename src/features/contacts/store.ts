import { sql, type Insertable, type Selectable } from 'kysely';
import { affected, isPostgres, type Executor } from '../../db/engine.js';
import { randomToken } from '../../lib/ids.js';
import type { ContactChangesTable, ContactListsTable, ContactsTable } from './tables.js';

export type ContactList = Selectable<ContactListsTable>;
export type Contact = Selectable<ContactsTable>;
export type ContactChange = Selectable<ContactChangesTable>;
export type ChangeAction = ContactChangesTable['action'];

export interface NewList {
  accountId: number;
  name: string;
  description?: string | null;
  labels?: [string | null, string | null, string | null, string | null];
  /** 'wallet' or 'loyalty' for a list a program owns (its contacts refuse direct changes: contact_17). */
  linkedTool?: string | null;
}

/** The key that makes list names unique regardless of case, and orders and searches them. */
export const listNameKey = (name: string): string => name.trim().toLowerCase();

/**
 * Creates a list with a fresh unguessable list_key. A UNIQUE index makes the
 * name unique among the account's lists without linked_tool: a clash throws
 * (isUniqueViolation in src/db/engine.ts). Lists a program owns may share a name.
 */
export async function createList(db: Executor, input: NewList): Promise<ContactList> {
  const [l1, l2, l3, l4] = input.labels ?? [null, null, null, null];
  return db
    .insertInto('contact_lists')
    .values({
      account_id: input.accountId,
      list_key: randomToken(16),
      name: input.name,
      name_key: listNameKey(input.name),
      description: input.description ?? null,
      custom_field_1: l1,
      custom_field_2: l2,
      custom_field_3: l3,
      custom_field_4: l4,
      linked_tool: input.linkedTool ?? null,
      created_at: Date.now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** List keys are base64url tokens; anything else cannot name a list (and never reaches a query). */
const LIST_KEY = /^[A-Za-z0-9_-]{1,64}$/;

/** The account's list with that key; another account's list is absent. */
export async function findList(db: Executor, accountId: number, listKey: string): Promise<ContactList | undefined> {
  if (!LIST_KEY.test(listKey)) return undefined;
  return db
    .selectFrom('contact_lists')
    .selectAll()
    .where('list_key', '=', listKey)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** Contact fields a caller may set; number is the full number with country code. */
export type ContactFields = Partial<
  Omit<Insertable<ContactsTable>, 'id' | 'account_id' | 'list_id' | 'created_at' | 'updated_at'>
> & {
  country_code: string;
  number: string;
};

/** Contact fields without the key (list and number): what an update may change. */
export type ContactChanges = Partial<Omit<ContactFields, 'number' | 'country_code'>>;

const defined = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/**
 * Creates the contact, or updates the one with the same number in the list,
 * and logs the change (contact_changes) in the same transaction: call it
 * inside one. Returns whether it was created.
 */
export async function upsertContact(
  trx: Executor,
  accountId: number,
  listId: number,
  fields: ContactFields,
): Promise<{ contact: Contact; created: boolean }> {
  const now = Date.now();
  const inserted = await trx
    .insertInto('contacts')
    .values({ ...fields, account_id: accountId, list_id: listId, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['list_id', 'number']).doNothing())
    .returningAll()
    .executeTakeFirst();
  let contact: Contact;
  let created: boolean;
  if (inserted) {
    contact = inserted;
    created = true;
  } else {
    contact = await trx
      .updateTable('contacts')
      .set({ ...defined(fields), updated_at: now })
      .where('list_id', '=', listId)
      .where('number', '=', fields.number)
      .returningAll()
      .executeTakeFirstOrThrow();
    created = false;
  }
  await logContactChange(trx, contact, created ? 'created' : 'updated', now);
  return { contact, created };
}

/** Updates the contact with that number in the list (one conditional UPDATE) and logs it; undefined when absent. Call inside a transaction. */
export async function updateContact(
  trx: Executor,
  listId: number,
  number: string,
  changes: ContactChanges,
): Promise<Contact | undefined> {
  const now = Date.now();
  const contact = await trx
    .updateTable('contacts')
    .set({ ...defined(changes), updated_at: now })
    .where('list_id', '=', listId)
    .where('number', '=', number)
    .returningAll()
    .executeTakeFirst();
  if (contact) await logContactChange(trx, contact, 'updated', now);
  return contact;
}

/** Deletes the contact with that number (and that email, when given) and logs it; undefined when nothing matched. Call inside a transaction. */
export async function deleteContact(
  trx: Executor,
  listId: number,
  number: string,
  email?: string,
): Promise<Contact | undefined> {
  let query = trx.deleteFrom('contacts').where('list_id', '=', listId).where('number', '=', number);
  if (email !== undefined) query = query.where('email', '=', email);
  const contact = await query.returningAll().executeTakeFirst();
  if (contact) await logContactChange(trx, contact, 'deleted');
  return contact;
}

export async function findContactById(db: Executor, listId: number, contactId: number): Promise<Contact | undefined> {
  return db
    .selectFrom('contacts')
    .selectAll()
    .where('id', '=', contactId)
    .where('list_id', '=', listId)
    .executeTakeFirst();
}

/** Copies a contact into another list; undefined when that list already has its number. Call inside a transaction. */
export async function copyContact(trx: Executor, source: Contact, targetListId: number): Promise<Contact | undefined> {
  const { id: _id, list_id: _list, created_at: _c, updated_at: _u, ...fields } = source;
  const now = Date.now();
  const copy = await trx
    .insertInto('contacts')
    .values({ ...fields, list_id: targetListId, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['list_id', 'number']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (copy) await logContactChange(trx, copy, 'created', now);
  return copy;
}

const IMPORT_COLUMNS = [
  'name',
  'email',
  'custom_field_1',
  'custom_field_2',
  'custom_field_3',
  'custom_field_4',
  'birthday_date',
  'facebook',
  'twitter',
  'linkedin',
  'instagram',
  'street',
  'zip',
] as const satisfies ReadonlyArray<keyof ContactFields>;

/**
 * Many upserts at once (the panel's import), with upsertContact's result:
 * new numbers go in multi-row INSERTs, a number already in the list (or
 * repeated in the rows) goes through upsertContact, and every change is
 * logged. Call inside a transaction. `onChunk` hears how many rows are done.
 */
export async function upsertContacts(
  trx: Executor,
  accountId: number,
  listId: number,
  rows: ContactFields[],
  onChunk: (done: number) => void | Promise<void> = () => undefined,
  chunkRows = 500,
): Promise<void> {
  for (let start = 0; start < rows.length; start += chunkRows) {
    const chunk = rows.slice(start, start + chunkRows);
    const now = Date.now();
    const inserted = await trx
      .insertInto('contacts')
      // Every row names every column: rows of one INSERT must agree, and SQLite has no DEFAULT in VALUES.
      .values(
        chunk.map((fields) => ({
          ...Object.fromEntries(IMPORT_COLUMNS.map((c) => [c, fields[c] ?? null])),
          country_code: fields.country_code,
          number: fields.number,
          account_id: accountId,
          list_id: listId,
          created_at: now,
          updated_at: now,
        })),
      )
      .onConflict((oc) => oc.columns(['list_id', 'number']).doNothing())
      .returningAll()
      .execute();
    if (inserted.length > 0) {
      await trx
        .insertInto('contact_changes')
        .values(
          inserted.map((c) => ({
            account_id: c.account_id,
            list_id: c.list_id,
            contact_id: c.id,
            action: 'created' as const,
            snapshot: JSON.stringify(c),
            created_at: now,
          })),
        )
        .execute();
    }
    const fresh = new Set(inserted.map((c) => c.number));
    for (const fields of chunk) {
      if (fresh.delete(fields.number)) continue;
      await upsertContact(trx, accountId, listId, fields);
    }
    await onChunk(Math.min(start + chunkRows, rows.length));
  }
}

export async function logContactChange(
  trx: Executor,
  contact: Contact,
  action: ChangeAction,
  at = Date.now(),
): Promise<void> {
  await trx
    .insertInto('contact_changes')
    .values({
      account_id: contact.account_id,
      list_id: contact.list_id,
      contact_id: contact.id,
      action,
      snapshot: JSON.stringify(contact),
      created_at: at,
    })
    .execute();
}

const CONTACT_COLUMNS = [
  'id',
  'account_id',
  'list_id',
  'country_code',
  'number',
  'name',
  'email',
  'custom_field_1',
  'custom_field_2',
  'custom_field_3',
  'custom_field_4',
  'birthday_date',
  'facebook',
  'twitter',
  'linkedin',
  'instagram',
  'street',
  'zip',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof Contact>;

/**
 * Logs a 'deleted' change for every contact of a list, in one INSERT … SELECT
 * (a list of 100,000 contacts is not read into memory). The snapshot is the
 * same JSON object logContactChange writes, built by the database.
 */
export async function logListDeletion(trx: Executor, listId: number, at = Date.now()): Promise<void> {
  const pairs = sql.join(CONTACT_COLUMNS.map((c) => sql`${sql.lit(c)}, ${sql.ref(c)}`));
  const snapshot = isPostgres(trx) ? sql`json_build_object(${pairs})::text` : sql`json_object(${pairs})`;
  await sql`insert into contact_changes (account_id, list_id, contact_id, action, snapshot, created_at)
    select account_id, list_id, id, 'deleted', ${snapshot}, ${at} from contacts where list_id = ${listId}`.execute(trx);
}

/** The newest changes of one kind, newest first, optionally of one list. */
export async function recentChanges(
  db: Executor,
  accountId: number,
  action: ChangeAction,
  limit: number,
  listId?: number,
) {
  let query = db
    .selectFrom('contact_changes as ch')
    .leftJoin('contact_lists as l', 'l.id', 'ch.list_id')
    .select(['ch.id', 'ch.action', 'ch.snapshot', 'ch.created_at', 'l.list_key'])
    .where('ch.account_id', '=', accountId)
    .where('ch.action', '=', action);
  if (listId !== undefined) query = query.where('ch.list_id', '=', listId);
  return query.orderBy('ch.id', 'desc').limit(limit).execute();
}

/** How many contacts each of the account's lists holds, by list key (a list without contacts is absent). */
export async function contactCountsByList(db: Executor, accountId: number): Promise<Map<string, number>> {
  const counts = await db
    .selectFrom('contacts')
    .select(['list_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('account_id', '=', accountId)
    .groupBy('list_id')
    .execute();
  const ids = await db
    .selectFrom('contact_lists')
    .select(['id', 'list_key'])
    .where('account_id', '=', accountId)
    .execute();
  const byKey = new Map<string, number>();
  for (const { id, list_key } of ids) {
    const found = counts.find((c) => Number(c.list_id) === Number(id));
    if (found) byKey.set(list_key, Number(found.n));
  }
  return byKey;
}

/** The columns a list's export has, in order (the fields of /contacts/add). */
export const EXPORT_COLUMNS = [
  'number',
  'country_code',
  'name',
  'email',
  'birthday_date',
  'custom_field_1',
  'custom_field_2',
  'custom_field_3',
  'custom_field_4',
  'street',
  'zip',
] as const;

/** A page of a list's contacts in id order, after the id `after`, with the export's columns. */
export function contactExportPage(db: Executor, listId: number, after: number, limit: number) {
  return db
    .selectFrom('contacts')
    .select(['id', ...EXPORT_COLUMNS])
    .where('list_id', '=', listId)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The first `limit` numbers of a list, in id order, with their country codes. */
export async function listNumbers(db: Executor, listId: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('contacts')
    .select('number')
    .where('list_id', '=', listId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.number);
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
