import { setImmediate as nextTurn } from 'node:timers/promises';
import { recordAudit, updateAuditEntry, type AuditInput } from '../../audit/service.js';
import type { Db } from '../../db/engine.js';
import { oldMexicanForm } from '../../phone/numbers.js';
import { deleteNumber, insertNumbers, numbersAfter } from './store.js';
import { LimitError, numberedLines, type ImportLimits } from './lines.js';

/**
 * The deployment-wide do-not-contact list: full international numbers that
 * no account sends to. The send path applies it where it applies opt-outs
 * (src/messaging/optouts.ts); these functions maintain it.
 */

/** A refused input; `code` names the rule (dnc_number, dnc_after, dnc_limit, dnc_line, dnc_too_large, dnc_too_many, dnc_line_too_long). */
export class DncError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'DncError';
  }
}

/** The most numbers one page of the list holds. */
export const MAX_PAGE = 1_000;

/** What an import reads at most: far above a national list, far below what would hold a process. */
export const IMPORT_LIMITS: ImportLimits = { bytes: 256 * 1024 * 1024, lines: 5_000_000, lineLength: 1_024 };

/** Numbers an import writes per transaction: a send waits for one of them at most. */
const IMPORT_CHUNK = 1_000;

const RULE = 'a full international number: 8 to 15 digits, country code first, digits only (525512345678)';

/** A written value as an error shows it: short, quoted, no control characters. */
const shown = (value: string) => JSON.stringify(value.slice(0, 20));

/** The number as the list holds it (surrounding spaces dropped), or null when it is not a full international number. */
function asNumber(raw: string): string | null {
  const number = String(raw).trim();
  const mexican = oldMexicanForm(number);
  if (mexican) return `52${mexican}`;
  // E.164: at most 15 digits, and no country code starts with 0.
  return /^[1-9]\d{7,14}$/.test(number) ? number : null;
}

function requireNumber(raw: string): string {
  const number = asNumber(raw);
  if (number === null) throw new DncError('dnc_number', `${shown(String(raw))} is not ${RULE}`);
  return number;
}

/** Who made a change, for the audit entry written in its transaction (the operator API's token and address). */
export type DncActor = Pick<AuditInput, 'actor' | 'address'>;

/** Lists a number; with `by`, the audit entry `dnc.add` is written in the same transaction. */
export async function addDoNotContact(db: Db, number: string, by?: DncActor): Promise<{ number: string }> {
  const listed = requireNumber(number);
  await db.kysely.transaction().execute(async (trx) => {
    await insertNumbers(trx, [listed], 'add', Date.now());
    if (by) await recordAudit(trx, { ...by, action: 'dnc.add', target: listed, detail: { number: listed } });
  });
  return { number: listed };
}

/** Takes a number off; with `by`, the audit entry `dnc.remove` is written in the same transaction when it was on. */
export async function removeDoNotContact(db: Db, number: string, by?: DncActor): Promise<{ removed: boolean }> {
  const listed = requireNumber(number);
  const removed = await db.kysely.transaction().execute(async (trx) => {
    const gone = await deleteNumber(trx, listed);
    if (gone && by) await recordAudit(trx, { ...by, action: 'dnc.remove', target: listed, detail: { number: listed } });
    return gone;
  });
  return { removed };
}

/**
 * One page of the list in the numbers' order: up to `limit` (1 to MAX_PAGE)
 * numbers after `after` (the last number of the previous page), from the
 * start without it. A page shorter than `limit` is the last.
 */
export async function listDoNotContact(
  db: Db,
  opts: { after?: string; limit: number },
): Promise<{ numbers: string[] }> {
  if (!Number.isInteger(opts.limit) || opts.limit < 1 || opts.limit > MAX_PAGE)
    throw new DncError('dnc_limit', `the limit is a whole number from 1 to ${MAX_PAGE}`);
  if (opts.after !== undefined && !/^\d{1,15}$/.test(opts.after))
    throw new DncError('dnc_after', 'after is a number of the list (digits only), the last of the previous page');
  return { numbers: await numbersAfter(db.kysely, opts.after, opts.limit) };
}

/**
 * The number of one line of an import: the whole line or its first column
 * (separated by a comma, a semicolon or a tab; quotes allowed), or null for a
 * blank line and for a first line without a digit (a header such as
 * `number,name`). Throws dnc_line, naming the line, for anything else.
 */
function numberOfLine(line: number, text: string): string | null {
  if (text.trim() === '') return null;
  const first = text
    .replace(/^\uFEFF/, '')
    .split(/[,;\t]/)[0]
    .trim()
    .replace(/^"(.*)"$/, '$1');
  if (line === 1 && !/\d/.test(first)) return null;
  const number = asNumber(first);
  if (number === null) throw new DncError('dnc_line', `line ${line}: ${shown(first)} is not ${RULE}`);
  return number;
}

/** The numbers of the input, IMPORT_CHUNK at a time, read as it streams. */
async function* numberChunks(source: AsyncIterable<Buffer | string>, limits: ImportLimits) {
  const chunk: string[] = [];
  try {
    for await (const { line, text } of numberedLines(source, limits)) {
      const number = numberOfLine(line, text);
      if (number !== null) chunk.push(number);
      if (chunk.length === IMPORT_CHUNK) yield [...new Set(chunk.splice(0))];
    }
  } catch (err) {
    if (!(err instanceof LimitError)) throw err;
    const code = { bytes: 'dnc_too_large', lines: 'dnc_too_many', lineLength: 'dnc_line_too_long' }[err.limit];
    throw new DncError(code, err.message);
  }
  if (chunk.length > 0) yield [...new Set(chunk)];
}

/**
 * Puts every number of a file on the list: one number per line, or a CSV
 * whose first column is the number. `open` gives the file's bytes and is
 * called twice: the whole file is checked first, and one malformed line
 * (dnc_line) or a broken limit refuses it with nothing written. The numbers
 * are then written IMPORT_CHUNK per transaction, with a turn of the event
 * loop between, so sends never wait for the whole import. `imported` counts
 * the numbers that were not on the list yet.
 *
 * With `audit`, its entry (`dnc.import`) is written in the first chunk's
 * transaction and its `imported` count brought up to date in each chunk's
 * own, with `finished: true` in the last: an import interrupted half way
 * (Ctrl-C, a crash) leaves an entry counting exactly what it wrote.
 */
export async function importDoNotContact(
  db: Db,
  open: () => AsyncIterable<Buffer | string>,
  limits: ImportLimits = IMPORT_LIMITS,
  audit?: AuditInput,
): Promise<{ imported: number }> {
  for await (const chunk of numberChunks(open(), limits)) void chunk;
  let imported = 0;
  let entry: number | undefined;
  const detail = (finished: boolean) => ({ ...audit?.detail, imported, finished });
  for await (const chunk of numberChunks(open(), limits)) {
    const now = Date.now();
    await db.kysely.transaction().execute(async (trx) => {
      imported += await insertNumbers(trx, chunk, 'import', now);
      if (!audit) return;
      if (entry === undefined) entry = await recordAudit(trx, { ...audit, detail: detail(false) });
      else await updateAuditEntry(trx, entry, detail(false));
    });
    await nextTurn();
  }
  if (audit) {
    if (entry === undefined) await recordAudit(db.kysely, { ...audit, detail: detail(true) });
    else await updateAuditEntry(db.kysely, entry, detail(true));
  }
  return { imported };
}
