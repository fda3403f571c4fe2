import type { WithDb } from '../../context.js';
import type { Kysely } from 'kysely';
import { writeInChunks } from '../../db/chunked-write.js';
import type { Executor } from '../../db/engine.js';
import type { Database } from '../../db/schema.js';
import { ApiError, badRequest } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { formatLocal, parseLocal } from '../../lib/time.js';
import {
  cleanCountryCode,
  cleanNumber,
  hasNationalLength,
  splitCountryCode,
  splitWritten,
  TEN_DIGIT_CODES,
} from '../../phone/numbers.js';
import {
  contactCountsByList,
  contactExportPage,
  listNumbers,
  copyContact,
  deleteContact,
  findContactById,
  findList,
  recentChanges,
  updateContact,
  upsertContact,
  upsertContacts,
  type ChangeAction,
  type Contact,
  type ContactChanges,
  type ContactFields,
  type ContactList,
} from './store.js';

defineMessages({
  contact_01: 'list_key is missing',
  contact_02: 'number is missing',
  contact_03: 'number is malformed: digits only, 10 digits without the country code',
  contact_04: 'name is longer than 100 characters',
  contact_05: 'email format is invalid',
  contact_06: 'email is longer than 100 characters',
  contact_07: 'The list does not exist',
  contact_09: 'The contact does not exist',
  contact_10: 'The contact is already in the target list',
  contact_12: 'contact_deleted',
  contact_13: 'contact_added',
  contact_15: 'contact_updated',
  contact_16: 'contact_id is missing or not a contact id',
  contact_17: 'The list is linked to a tool (wallet or loyalty program) and accepts no changes',
  contact_19: 'The contact does not exist or could not be deleted',
  polling_01: 'contact_changes',
  polling_02: 'Unknown action: use created, updated or deleted',
  polling_03: 'limit must be an integer from 1 to 100',
});

export const NATIONAL_DIGITS = 10;
const COUNTRY_CODE = /^\+?(\d{1,3})$/;

/**
 * The number as stored: country code + national number, digits only.
 * Without findCountryCode the number is the 10-digit national number (or,
 * for a country code other than 52, 1 and 57, one of its country's length; a
 * number already starting with the given country code is accepted too).
 * With findCountryCode a longer number carries its own country code, read
 * from libphonenumber's metadata; a 10-digit one is still national.
 * Null when malformed.
 */
export function normalizeNumber(
  raw: string,
  countryCodeInput: string,
  findCountryCode: boolean,
): { countryCode: string; number: string } | null {
  // As clients write them: '55 1234-5678', '+52 55 1234 5678' (with its country code), country code '+52' or '052'.
  const { digits, international } = splitWritten(cleanNumber(raw));
  const cc = COUNTRY_CODE.exec(cleanCountryCode(countryCodeInput))?.[1];
  // A country whose numbers are not 10 digits (34: 612345678): its own length (the send path's rule).
  if (cc && !international && !TEN_DIGIT_CODES.has(cc) && hasNationalLength(cc, digits))
    return { countryCode: cc, number: cc + digits };
  if (!/^\d{10,15}$/.test(digits) || !cc) return null;
  if (digits.length === NATIONAL_DIGITS && !international) return { countryCode: cc, number: cc + digits };
  if (findCountryCode || international) {
    const split = splitCountryCode(digits);
    return split ? { countryCode: split.countryCode, number: split.countryCode + split.national } : null;
  }
  if (digits.startsWith(cc) && digits.length === cc.length + NATIONAL_DIGITS)
    return { countryCode: cc, number: digits };
  return null;
}

/** A birthday in YYYY-MM-DD that is a real date, else undefined (the spec ignores other formats). */
export function birthday(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  return /^\d{4}-\d{2}-\d{2}$/.test(v) && parseLocal(v) !== null ? v : undefined;
}

/** The list named by list_key, for reading: absent (or another account's) gives contact_07. */
export async function listOrFail(db: Executor, accountId: number, listKey: string): Promise<ContactList> {
  const list = await findList(db, accountId, listKey);
  if (!list) throw badRequest('contact_07');
  return list;
}

/** The list, for changing its contacts: a list a wallet or loyalty program owns refuses with contact_17. */
export async function writableList(db: Executor, accountId: number, listKey: string): Promise<ContactList> {
  const list = await listOrFail(db, accountId, listKey);
  if (list.linked_tool) throw badRequest('contact_17');
  return list;
}

export const contactAbsent = () => new ApiError(400, 'contact_09', undefined, { exist: false });

/** The spec's Contact record (the `callback` of add, update and duplicate); absent text is ''. */
export function contactRecord(c: Contact) {
  const s = (v: string | null) => v ?? '';
  return {
    id: c.id,
    list_id: c.list_id,
    country_code: c.country_code,
    number: c.number,
    name: s(c.name),
    email: s(c.email),
    custom_field_1: s(c.custom_field_1),
    custom_field_2: s(c.custom_field_2),
    custom_field_3: s(c.custom_field_3),
    custom_field_4: s(c.custom_field_4),
    birthday_date: s(c.birthday_date),
    facebook: s(c.facebook),
    twitter: s(c.twitter),
    linkedin: s(c.linkedin),
    instagram: s(c.instagram),
    street: s(c.street),
    zip: s(c.zip),
  };
}

/** What /contacts/add and /contacts/update accept (after validation). */
export interface ContactInput {
  list_key: string;
  number: string;
  country_code?: string;
  find_country_code: 0 | 1;
  name?: string;
  email?: string;
  birthday_date?: string;
  custom_field_1?: string;
  custom_field_2?: string;
  custom_field_3?: string;
  custom_field_4?: string;
  facebook?: string;
  twitter?: string;
  linkedin?: string;
  instagram?: string;
  street?: string;
  zip?: string;
}

export const DEFAULT_COUNTRY_CODE = '52';

function numberOf(input: { number: string; country_code?: string; find_country_code: 0 | 1 }) {
  const normalized = normalizeNumber(
    input.number,
    input.country_code ?? DEFAULT_COUNTRY_CODE,
    input.find_country_code === 1,
  );
  if (!normalized) throw badRequest('contact_03');
  return normalized;
}

function changesOf(input: ContactInput): ContactChanges {
  return {
    name: input.name,
    email: input.email,
    birthday_date: birthday(input.birthday_date),
    custom_field_1: input.custom_field_1,
    custom_field_2: input.custom_field_2,
    custom_field_3: input.custom_field_3,
    custom_field_4: input.custom_field_4,
    facebook: input.facebook,
    twitter: input.twitter,
    linkedin: input.linkedin,
    instagram: input.instagram,
    street: input.street,
    zip: input.zip,
  };
}

/** A list deleted between its lookup and the write shows as a foreign-key failure: the list no longer exists. */
async function whileListExists<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw badRequest('contact_07');
    throw error;
  }
}

export async function addContact(db: Kysely<Database>, accountId: number, input: ContactInput) {
  const { countryCode, number } = numberOf(input);
  const list = await writableList(db, accountId, input.list_key);
  return whileListExists(() =>
    db
      .transaction()
      .execute((trx) =>
        upsertContact(trx, accountId, list.id, { ...changesOf(input), country_code: countryCode, number }),
      ),
  );
}

/** Updates an existing contact; never creates one (contact_09 with exist false). */
export async function changeContact(db: Kysely<Database>, accountId: number, input: ContactInput): Promise<Contact> {
  const { number } = numberOf(input);
  const list = await writableList(db, accountId, input.list_key);
  const contact = await db.transaction().execute((trx) => updateContact(trx, list.id, number, changesOf(input)));
  if (!contact) throw contactAbsent();
  return contact;
}

export async function removeContact(
  db: Kysely<Database>,
  accountId: number,
  input: { list_key: string; number: string; email?: string; country_code?: string; find_country_code: 0 | 1 },
) {
  const { number } = numberOf(input);
  const list = await writableList(db, accountId, input.list_key);
  const contact = await db.transaction().execute((trx) => deleteContact(trx, list.id, number, input.email));
  if (!contact) throw badRequest('contact_19');
}

/** Copies a contact of one list into another: contact_10 when the target already has its number. */
export async function duplicateContact(
  db: Kysely<Database>,
  accountId: number,
  input: { current_list_key: string; new_list_key: string; contact_id: number },
): Promise<Contact> {
  const source = await listOrFail(db, accountId, input.current_list_key);
  const target = await writableList(db, accountId, input.new_list_key);
  const contact = await findContactById(db, source.id, input.contact_id);
  if (!contact) throw contactAbsent();
  const copy = await whileListExists(() => db.transaction().execute((trx) => copyContact(trx, contact, target.id)));
  if (!copy) throw badRequest('contact_10');
  return copy;
}

export const POLLING_ACTIONS = ['created', 'updated', 'deleted'] as const satisfies readonly ChangeAction[];

/** The newest changes of one kind, newest first; each carries the contact as it was after the change (before it, for deleted). */
export async function pollChanges(
  db: Kysely<Database>,
  accountId: number,
  action: string,
  opts: { list_key?: string; limit: number },
) {
  if (!(POLLING_ACTIONS as readonly string[]).includes(action)) throw badRequest('polling_02');
  const list = opts.list_key === undefined ? undefined : await listOrFail(db, accountId, opts.list_key);
  const rows = await recentChanges(db, accountId, action as ChangeAction, opts.limit, list?.id);
  return rows.map((r) => ({
    id: r.id,
    action: r.action,
    change_date: formatLocal(r.created_at),
    list_key: r.list_key ?? '',
    contact: contactRecord(JSON.parse(r.snapshot) as Contact),
  }));
}

/** Contacts an import writes per transaction: another tenant's write waits for one of them at most. */
export const CONTACT_IMPORT_CHUNK = 250;

/** A contact as /contacts/add would write it: its number normalised (contact_03 when malformed). */
export function contactFieldsOf(input: ContactInput): ContactFields {
  const { countryCode, number } = numberOf(input);
  return { ...changesOf(input), country_code: countryCode, number };
}

/**
 * Adds (or updates, by number) many contacts of one list, checked already
 * (contactFieldsOf), CONTACT_IMPORT_CHUNK a transaction with a turn of the
 * event loop between (writeInChunks), so another tenant's send never waits
 * for the whole import; `written(n)` follows each commit. A failure half-way
 * leaves the chunks before it written: the same rows again finish the import
 * (a number on the list is updated, never repeated). Returns how many rows.
 */
export async function importContacts(
  db: Kysely<Database>,
  accountId: number,
  listKey: string,
  rows: ContactFields[],
  written: (count: number) => void = () => undefined,
): Promise<number> {
  const list = await writableList(db, accountId, listKey);
  const upsert = async (trx: Executor, chunk: ContactFields[]) => {
    await upsertContacts(trx, accountId, list.id, chunk);
    return chunk.length;
  };
  return whileListExists(() => writeInChunks(db, rows, CONTACT_IMPORT_CHUNK, upsert, written));
}

// Given the context (the panel's Contacts and Send pages).

export { EXPORT_COLUMNS } from './store.js';
/** The lists feature's writes: a list is a row of contact_lists, its contacts rows of contacts (this module's). */
export { createList, deleteListWithContacts, listNameKey, renameList, type ContactList } from './store.js';
export type { ContactFields } from './store.js';

export const listOf = (ctx: WithDb, accountId: number, listKey: string) =>
  listOrFail(ctx.db.kysely, accountId, listKey);

export const contactCountsOf = (ctx: WithDb, accountId: number) => contactCountsByList(ctx.db.kysely, accountId);

export const exportPageOf = (ctx: WithDb, listId: number, after: number, limit: number) =>
  contactExportPage(ctx.db.kysely, listId, after, limit);

/** The first `limit` numbers of one of the account's lists (list_02 when it has no such list). */
export async function numbersOfList(ctx: WithDb, accountId: number, listKey: string, limit: number) {
  const list = await listOrFail(ctx.db.kysely, accountId, listKey);
  return listNumbers(ctx.db.kysely, list.id, limit);
}

export const importListContacts = (
  ctx: WithDb,
  accountId: number,
  listKey: string,
  rows: ContactFields[],
  written: (count: number) => void,
) => importContacts(ctx.db.kysely, accountId, listKey, rows, written);
