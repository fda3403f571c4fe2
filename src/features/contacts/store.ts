import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/engine.js';
import { randomToken } from '../../lib/ids.js';
import type { ContactListsTable, ContactsTable } from './tables.js';

export type ContactList = Selectable<ContactListsTable>;
export type Contact = Selectable<ContactsTable>;

export interface NewList {
  accountId: number;
  name: string;
  description?: string | null;
  labels?: [string | null, string | null, string | null, string | null];
  /** 'wallet' or 'loyalty' for a list a program owns (its contacts refuse direct changes: contact_17). */
  linkedTool?: string | null;
}

/** Creates a list with a fresh unguessable list_key. The caller checks name uniqueness (a UNIQUE index backs it). */
export async function createList(db: Executor, input: NewList): Promise<ContactList> {
  const [l1, l2, l3, l4] = input.labels ?? [null, null, null, null];
  return db
    .insertInto('contact_lists')
    .values({
      account_id: input.accountId,
      list_key: randomToken(16),
      name: input.name,
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

/** Contact fields a caller may set; number is the full number with country code. */
export type ContactFields = Partial<Omit<Insertable<ContactsTable>, 'id' | 'account_id' | 'list_id' | 'created_at' | 'updated_at'>> & {
  country_code: string;
  number: string;
};

/**
 * Creates the contact, or updates the one with the same number in the list,
 * and logs the change (contact_changes) in the same transaction: call it
 * inside one. Returns whether it was created.
 */
export async function upsertContact(trx: Executor, accountId: number, listId: number, fields: ContactFields): Promise<{ contact: Contact; created: boolean }> {
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
    const changes = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
    contact = await trx
      .updateTable('contacts')
      .set({ ...changes, updated_at: now })
      .where('list_id', '=', listId)
      .where('number', '=', fields.number)
      .returningAll()
      .executeTakeFirstOrThrow();
    created = false;
  }
  await logContactChange(trx, contact, created ? 'created' : 'updated', now);
  return { contact, created };
}

export async function logContactChange(trx: Executor, contact: Contact, action: 'created' | 'updated' | 'deleted', at = Date.now()): Promise<void> {
  await trx
    .insertInto('contact_changes')
    .values({ account_id: contact.account_id, list_id: contact.list_id, contact_id: contact.id, action, snapshot: JSON.stringify(contact), created_at: at })
    .execute();
}
