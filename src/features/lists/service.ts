import type { WithDb } from '../../context.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { badRequest } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { formatLocal } from '../../lib/time.js';
import { isUniqueViolation } from '../../db/engine.js';
import {
  createList,
  deleteListWithContacts,
  listOrFail,
  renameList,
  writableList,
  type ContactList,
} from '../contacts/service.js';
import { listsOfAccount, searchLists } from './store.js';

defineMessages({
  agenda_01: 'phoneBookSavedSuccess',
  agenda_02: 'agenda_name is missing',
  agenda_03: 'agenda_name is longer than 100 characters',
  agenda_04: 'The account already has a list with this name',
  agenda_05: 'agenda_description is longer than 255 characters or a custom field label longer than 100',
  agendas_01: 'agendas_found',
  change_name_01: 'phonebook_name_updated',
  delete_agenda_01: 'phonebook_deleted',
  get_contacts_01: 'contacts_found',
  contactlist_01: 'query is longer than 100 characters',
  contactlist_02: 'page must be an integer from 1 to 1000000 and limit an integer from 1 to 100',
  contactlist_03: 'lists_found',
});

export interface NewListInput {
  agenda_name: string;
  agenda_description?: string;
  custom_field_1?: string;
  custom_field_2?: string;
  custom_field_3?: string;
  custom_field_4?: string;
}

const nameTaken = (error: unknown) => (isUniqueViolation(error) ? badRequest('agenda_04') : error);

export async function addList(db: Kysely<Database>, accountId: number, input: NewListInput): Promise<ContactList> {
  const labels = [
    input.custom_field_1 ?? null,
    input.custom_field_2 ?? null,
    input.custom_field_3 ?? null,
    input.custom_field_4 ?? null,
  ] as const;
  return createList(db, {
    accountId,
    name: input.agenda_name,
    description: input.agenda_description ?? null,
    labels: [...labels],
  }).catch((e) => {
    throw nameTaken(e);
  });
}

/** The spec's Contact list record; absent text is ''. */
export function listRecord(l: ContactList) {
  return {
    agenda_name: l.name,
    agenda_description: l.description ?? '',
    agenda_creation_date: formatLocal(l.created_at),
    list_key: l.list_key,
    custom_field_1: l.custom_field_1 ?? '',
    custom_field_2: l.custom_field_2 ?? '',
    custom_field_3: l.custom_field_3 ?? '',
    custom_field_4: l.custom_field_4 ?? '',
    linked_tool: l.linked_tool ?? '',
  };
}

export async function allLists(db: Kysely<Database>, accountId: number) {
  return (await listsOfAccount(db, accountId)).map(listRecord);
}

/** Renames a list; still unique among the account's lists (agenda_04). A list a program owns refuses (contact_17). */
export async function changeListName(
  db: Kysely<Database>,
  accountId: number,
  listKey: string,
  name: string,
): Promise<void> {
  const list = await writableList(db, accountId, listKey);
  const renamed = await renameList(db, accountId, list.id, name).catch((e) => {
    throw nameTaken(e);
  });
  if (!renamed) throw badRequest('contact_07');
}

/** Deletes a list and all its contacts. A list a program owns refuses (contact_17). */
export async function deleteList(db: Kysely<Database>, accountId: number, listKey: string): Promise<void> {
  const list = await writableList(db, accountId, listKey);
  const deleted = await db.transaction().execute((trx) => deleteListWithContacts(trx, list.id));
  if (!deleted) throw badRequest('contact_07');
}

/** The list whose contacts are listed (contact_07 when absent). */
export const listToRead = listOrFail;

export const MAX_PAGE = 1_000_000;

export async function findLists(db: Kysely<Database>, accountId: number, query: string, page: number, limit: number) {
  const { rows, total } = await searchLists(db, accountId, query, limit, (page - 1) * limit);
  const totalPages = Math.ceil(total / limit);
  const hasMore = page < totalPages;
  return {
    // id is the list_key: integrations pass result[].id straight to list_key (docs/api/compatibility.md).
    result: rows.map((r) => ({ id: r.list_key, name: r.name, list_key: r.list_key })),
    total_count: total,
    page,
    total_pages: totalPages,
    limit,
    has_more: hasMore,
    next_page: hasMore ? page + 1 : null,
  };
}

// Given the context (the panel's Contacts and Send pages).

export const listsOf = (ctx: WithDb, accountId: number) => allLists(ctx.db.kysely, accountId);

export const newList = (ctx: WithDb, accountId: number, input: NewListInput) =>
  addList(ctx.db.kysely, accountId, input);
