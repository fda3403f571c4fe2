import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../http/errors.js';
import { parse } from '../../../http/validate.js';
import { newList } from '../../../features/lists/service.js';
import { AddBody } from '../../../features/lists/schemas.js';
import { ContactBody } from '../../../features/contacts/schemas.js';
import {
  contactFieldsOf,
  EXPORT_COLUMNS,
  exportPageOf,
  importListContacts,
  listOf,
  type ContactFields,
  type ContactInput,
} from '../../../features/contacts/service.js';
import { sendCsv } from '../../csv.js';
import { csvImports, readCsv, type ImportLimits } from '../../csv-import.js';
import { accountOf, makeView, refuse, registerAction, type Section, type Shared } from '../../view.js';

/** One import: at most this many rows and bytes (a bigger file is split). */
export const MAX_IMPORT_ROWS = 50_000;
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;
/** Errors listed back to the browser; the count says how many there are in all. */
const MAX_ERRORS_SHOWN = 100;

/** The Contacts page's routes: create a list, import a CSV into one, export one. */
export function registerContactActions(scope: FastifyInstance, shared: Shared, section: Section): void {
  const { ctx } = shared;
  registerAction(scope, shared, section, 'create-list', async (_request, v, body) => {
    await newList(ctx, accountOf(v).id, parse(AddBody, body, 'agenda_01'));
    return { done: 'list_created' };
  });

  /** One import at a time per family (429 import_busy). */
  const importing = csvImports();
  scope.register(async (importer) => {
    // The body stays a stream: readCsv reads it as it parses, and stops at the limits.
    importer.addContentTypeParser('text/csv', (_request, payload, done) => done(null, payload));
    importer.post(
      '/contacts/import',
      { schema: { hide: true }, config: { panel: 'account', panelBodyLimit: MAX_IMPORT_BYTES } },
      (request, reply) => importCsv(shared, importing, request, reply),
    );
  });

  scope.get('/contacts/export', { schema: { hide: true }, config: { panel: 'account' } }, async (request, reply) => {
    const v = makeView(ctx, shared.assets(), request);
    const list = await listOf(ctx, accountOf(v).id, String((request.query as { list?: string }).list ?? ''));
    const page = (after: number) => exportPageOf(ctx, list.id, after, 2000);
    // The number as /contacts/add takes it (without its country code), so an export imports back as it was.
    return sendCsv(reply, `contacts-${list.list_key}.csv`, EXPORT_COLUMNS, page, (r) =>
      EXPORT_COLUMNS.map((c) =>
        c === 'number'
          ? r.number.slice(r.country_code.length)
          : r[c] === null || r[c] === undefined
            ? ''
            : String(r[c]),
      ),
    );
  });
}

/**
 * The CSV's header names the fields of /contacts/add (number required);
 * each row is checked as /contacts/add would check it while the file is
 * read (csvImports: within its limits, one import at a time per family).
 * Any error answers 400 with the errors per line and writes nothing;
 * otherwise the answer streams progress lines (NDJSON) while the rows are
 * written CONTACT_IMPORT_CHUNK a transaction.
 */
async function importCsv(
  shared: Shared,
  run: ReturnType<typeof csvImports>,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const { ctx } = shared;
  const account = accountOf(makeView(ctx, shared.assets(), request));
  const listKey = String((request.query as { list?: string }).list ?? '');
  await listOf(ctx, account.id, listKey);
  return run(request, reply, {
    name: 'contact',
    family: account.parent_id ?? account.id,
    limits: { rows: MAX_IMPORT_ROWS, bytes: MAX_IMPORT_BYTES, shown: MAX_ERRORS_SHOWN },
    read: (body, limits) => contactsOfCsv(body, limits, listKey),
    write: (rows, written) => importListContacts(ctx, account.id, listKey, rows, written),
    failed: (err, written) =>
      err instanceof ApiError
        ? err.message
        : `the import stopped after ${written} contacts; import the file again to finish it`,
  });
}

/** The contacts of a CSV whose first row names their fields, each checked as /contacts/add checks it. */
function contactsOfCsv(body: Readable, limits: ImportLimits, listKey: string) {
  let header: string[] | undefined;
  return readCsv<ContactFields>(body, limits, { sameColumns: true, maxRecordSize: 64 * 1024 }, (record) => {
    if (!header) {
      header = record.map((h) => h.toLowerCase());
      if (!header.includes('number')) throw refuse(400, 'import_no_number');
      return null;
    }
    const fields = Object.fromEntries(header.map((name, i) => [name, record[i]]));
    try {
      return {
        row: contactFieldsOf(parse(ContactBody, { ...fields, list_key: listKey }, 'contact_03') as ContactInput),
      };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return { error: { code: err.code, message: err.message } };
    }
  });
}
