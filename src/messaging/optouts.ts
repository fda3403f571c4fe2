import { sql } from 'kysely';
import type { Executor } from '../db/engine.js';
import { compiledOnce } from '../db/prepared.js';
import { keywordForm } from '../text/keyword.js';
import type { OptoutSource } from './optout-tables.js';

/** The longest confirmation text: one SMS of GSM-7 characters' worth of room for a short notice. */
export const MAX_CONFIRMATION = 160;

/** The delivery status code of a message to an opted-out number (spec, Events): 10, blacklist. */
export const OPTOUT_STATUS = 10;

/** The error recorded on such a message. */
export const OPTOUT_ERROR = 'not sent: the number opted out';

/** …and on a message to a number of the deployment's do-not-contact list (src/features/dnc), same status 10. */
export const DNC_ERROR = 'not sent: the number is on the do-not-contact list';

const STOP_WORDS = new Set(['STOP', 'BAJA', 'ALTO', 'CANCELAR', 'UNSUBSCRIBE']);
const START_WORDS = new Set(['ALTA', 'START', 'SUSCRIBIR']);

/** Rows per `IN (…)` list: under SQLite's bound-parameter limit. */
const CHUNK = 500;

/**
 * What a reply's whole text asks of the opt-out list: 'stop' (add the
 * number), 'start' (take it off) or nothing. Compared in the form MO routes
 * compare a first word (keywordForm: any case, accents, width variants and
 * invisible characters ignored, punctuation and quotes around it dropped:
 * " Bája. " is BAJA); the whole text must be the keyword ("STOP please" is
 * none), and a longer text is never one.
 */
export function optoutKeyword(text: string): 'stop' | 'start' | null {
  if (text.length > 64) return null;
  const word = keywordForm(text);
  if (STOP_WORDS.has(word)) return 'stop';
  if (START_WORDS.has(word)) return 'start';
  return null;
}

/** The account whose list applies: a sub-account shares its top-level account's. */
export async function listOwner(db: Executor, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select(['id', 'parent_id'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.parent_id ?? row.id);
}

export async function optoutSettings(
  db: Executor,
  owner: number,
): Promise<{ exemptOtp: boolean; confirmation: string | null }> {
  const row = await db
    .selectFrom('optout_settings')
    .select(['exempt_otp', 'confirmation'])
    .where('account_id', '=', owner)
    .executeTakeFirst();
  return { exemptOtp: row?.exempt_otp === 1, confirmation: row?.confirmation ?? null };
}

/**
 * One number (a single-recipient send, every OTP code) in one statement: the
 * number as its family's list holds it (null when it does not), the
 * top-level account's OTP exemption, and the number as the do-not-contact
 * list holds it.
 */
const oneNumberListed = compiledOnce((db, accountId: number, number: string) =>
  db
    .selectFrom('accounts')
    .select((eb) => {
      const owner = eb.fn.coalesce('accounts.parent_id', 'accounts.id');
      return [
        eb
          .selectFrom('optouts')
          .select('optouts.number')
          .where('optouts.account_id', '=', owner)
          .where('optouts.number', '=', number)
          .as('listed'),
        eb
          .selectFrom('optout_settings')
          .select('optout_settings.exempt_otp')
          .where('optout_settings.account_id', '=', owner)
          .as('exempt_otp'),
        eb.selectFrom('do_not_contact').select('do_not_contact.number').where('number', '=', number).as('dnc'),
      ];
    })
    .where('accounts.id', '=', accountId),
);

/**
 * The numbers among `numbers` that are not sent to, each with the error its
 * message records: those on the do-not-contact list (DNC_ERROR), then those
 * on the account's family's opt-out list (OPTOUT_ERROR). `otp` is an OTP
 * code in its standard text: the do-not-contact list (about unsolicited
 * contact) never holds it back, the opt-out list only when the top-level
 * account does not exempt codes. One statement for one number; for more,
 * one per CHUNK numbers that reads both lists.
 */
export async function blockedAmong(
  db: Executor,
  accountId: number,
  numbers: string[],
  otp: boolean,
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (numbers.length === 0) return found;
  if (numbers.length === 1) {
    const row = (await oneNumberListed(db, accountId, numbers[0])).rows[0];
    if (!row) throw new Error(`no account ${accountId}`);
    if (row.dnc !== null && !otp) found.set(numbers[0], DNC_ERROR);
    else if (row.listed !== null && !(otp && Number(row.exempt_otp) === 1)) found.set(numbers[0], OPTOUT_ERROR);
    return found;
  }
  const owner = await listOwner(db, accountId);
  if (otp && (await optoutSettings(db, owner)).exemptOtp) return found;
  for (let i = 0; i < numbers.length; i += CHUNK) {
    const chunk = numbers.slice(i, i + CHUNK);
    const inOptouts = db
      .selectFrom('optouts')
      .select(['number', sql<number>`0`.as('dnc')])
      .where('account_id', '=', owner)
      .where('number', 'in', chunk);
    const inDnc = db
      .selectFrom('do_not_contact')
      .select(['number', sql<number>`1`.as('dnc')])
      .where('number', 'in', chunk);
    for (const r of await (otp ? inOptouts : inDnc.unionAll(inOptouts)).execute())
      if (Number(r.dnc) === 1) found.set(r.number, DNC_ERROR);
      else if (!found.has(r.number)) found.set(r.number, OPTOUT_ERROR);
  }
  return found;
}

/** Entries on the owner's list. */
export async function listSize(db: Executor, owner: number): Promise<number> {
  const { n } = await db
    .selectFrom('optouts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', owner)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** How many of `numbers` (distinct) the owner's list holds; `between` runs between statements (a turn of the event loop). */
export async function listedAmong(
  db: Executor,
  owner: number,
  numbers: string[],
  between: () => Promise<unknown>,
): Promise<number> {
  let listed = 0;
  for (let i = 0; i < numbers.length; i += CHUNK) {
    const { n } = await db
      .selectFrom('optouts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', owner)
      .where('number', 'in', numbers.slice(i, i + CHUNK))
      .executeTakeFirstOrThrow();
    listed += Number(n);
    await between();
  }
  return listed;
}

/** Puts numbers on the owner's list; returns those that were not on it (a number already there keeps its first source and date). */
export async function addOptouts(
  db: Executor,
  owner: number,
  numbers: string[],
  source: OptoutSource,
  now: number,
): Promise<string[]> {
  const added: string[] = [];
  for (let i = 0; i < numbers.length; i += CHUNK) {
    const rows = await db
      .insertInto('optouts')
      .values(numbers.slice(i, i + CHUNK).map((number) => ({ account_id: owner, number, source, created_at: now })))
      .onConflict((oc) => oc.columns(['account_id', 'number']).doNothing())
      .returning('number')
      .execute();
    for (const r of rows) added.push(r.number);
  }
  return added;
}

/** Takes numbers off the owner's list; returns how many were on it. */
export async function removeOptouts(db: Executor, owner: number, numbers: string[]): Promise<number> {
  let removed = 0;
  for (let i = 0; i < numbers.length; i += CHUNK) {
    const rows = await db
      .deleteFrom('optouts')
      .where('account_id', '=', owner)
      .where('number', 'in', numbers.slice(i, i + CHUNK))
      .returning('number')
      .execute();
    removed += rows.length;
  }
  return removed;
}

/**
 * Of these messages, those whose number went on a list after they were
 * accepted (a scheduled send, a queue that waited), each with the error to
 * record: the do-not-contact list (OTP codes left out: a code accepted
 * before its number was listed goes out within its short validity), or the
 * family's opt-out list (OTP codes of a family that exempts them left out).
 * One statement.
 */
export async function optedOutMessages(db: Executor, messageIds: number[]): Promise<Map<number, string>> {
  if (messageIds.length === 0) return new Map();
  const onDnc = db
    .selectFrom('messages as m')
    .innerJoin('do_not_contact as d', 'd.number', 'm.number')
    .innerJoin('campaigns as c', 'c.id', 'm.campaign_id')
    .select(['m.id', sql<number>`1`.as('dnc')])
    .where('m.id', 'in', messageIds)
    .whereRef('m.created_at', '<', 'd.created_at')
    .where('c.source', '!=', 'otp');
  const rows = await db
    .selectFrom('messages as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .innerJoin('optouts as o', (join) =>
      join
        .onRef('o.number', '=', 'm.number')
        .on((eb) => eb('o.account_id', '=', eb.fn.coalesce('a.parent_id', 'a.id'))),
    )
    .innerJoin('campaigns as c', 'c.id', 'm.campaign_id')
    .leftJoin('optout_settings as s', 's.account_id', 'o.account_id')
    .select(['m.id', sql<number>`0`.as('dnc')])
    .where('m.id', 'in', messageIds)
    // Later messages passed the list when accepted: held back then, or sent on purpose (an opt-out's confirmation).
    .whereRef('m.created_at', '<', 'o.created_at')
    .where((eb) => eb.or([eb('c.source', '!=', 'otp'), eb(eb.fn.coalesce('s.exempt_otp', eb.val(0)), '=', 0)]))
    .unionAll(onDnc)
    .execute();
  const found = new Map<number, string>();
  for (const r of rows)
    if (Number(r.dnc) === 1) found.set(Number(r.id), DNC_ERROR);
    else if (!found.has(Number(r.id))) found.set(Number(r.id), OPTOUT_ERROR);
  return found;
}

/** Writes a family's opt-out choices (`owner`: the top-level account), only the columns in `set`. */
export async function saveOptoutSettings(
  db: Executor,
  owner: number,
  set: { exempt_otp?: number; confirmation?: string | null },
): Promise<void> {
  await db
    .insertInto('optout_settings')
    .values({ account_id: owner, exempt_otp: 0, confirmation: null, ...set })
    .onConflict((oc) => oc.column('account_id').doUpdateSet(set))
    .execute();
}
