import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse as parseCsv } from 'csv-parse/sync';
import { ApiError } from '../../../http/errors.js';
import { parse } from '../../../http/validate.js';
import { newList } from '../../../features/lists/service.js';
import { AddBody } from '../../../features/lists/schemas.js';
import { ContactBody } from '../../../features/contacts/schemas.js';
import {
  EXPORT_COLUMNS,
  exportPageOf,
  importListContacts,
  importRows,
  listOf,
  type ContactInput,
  type ImportRowError,
} from '../../../features/contacts/service.js';
import { sendCsv } from '../../csv.js';
import { accountOf, makeView, refuse, registerAction, type Section, type Shared } from '../../view.js';

/** One import: at most this many rows and bytes (a bigger file is split). */
export const MAX_IMPORT_ROWS = 50_000;
const MAX_IMPORT_BYTES = 20 * 1024 * 1024;
/** Errors listed back to the browser; the count says how many there are in all. */
const MAX_ERRORS_SHOWN = 100;

/** The Contacts page's routes: create a list, import a CSV into one, export one. */
export function registerContactActions(scope: FastifyInstance, shared: Shared, section: Section): void {
  const { ctx } = shared;
  registerAction(scope, shared, section, 'create-list', async (_request, v, body) => {
    await newList(ctx, accountOf(v).id, parse(AddBody, body, 'agenda_01'));
    return { done: 'list_created' };
  });

  scope.register(async (importer) => {
    importer.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: MAX_IMPORT_BYTES }, (_req, body, done) =>
      done(null, body),
    );
    importer.post(
      '/contacts/import',
      { schema: { hide: true }, config: { panel: 'account', panelBodyLimit: MAX_IMPORT_BYTES } },
      (request, reply) => importCsv(shared, request, reply),
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
 * The CSV's header names the fields of /contacts/add (number required).
 * Every row is checked first: any error answers 400 with the errors per
 * line and writes nothing. Otherwise the answer streams progress lines
 * (NDJSON) while one transaction writes every row.
 */
async function importCsv(shared: Shared, request: FastifyRequest, reply: FastifyReply) {
  const { ctx } = shared;
  const v = makeView(ctx, shared.assets(), request);
  const account = accountOf(v);
  const listKey = String((request.query as { list?: string }).list ?? '');
  await listOf(ctx, account.id, listKey);
  if (typeof request.body !== 'string') throw refuse(415, 'import_csv_only');
  let records: Array<Record<string, string>>;
  try {
    records = parseCsv(request.body, {
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      bom: true,
      skip_empty_lines: true,
      trim: true,
      max_record_size: 64 * 1024,
    });
  } catch (err) {
    throw refuse(400, 'import_malformed', { detail: String((err as Error).message).slice(0, 200) });
  }
  if (records.length === 0) throw refuse(400, 'import_empty');
  if (records.length > MAX_IMPORT_ROWS) throw refuse(400, 'import_too_many', { max: MAX_IMPORT_ROWS });
  if (!('number' in records[0])) throw refuse(400, 'import_no_number');

  const errors: ImportRowError[] = [];
  const inputs: Array<{ line: number; input: ContactInput }> = [];
  records.forEach((record, i) => {
    try {
      inputs.push({
        line: i + 2,
        input: parse(ContactBody, { ...record, list_key: listKey }, 'contact_03') as ContactInput,
      });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      errors.push({ line: i + 2, code: err.code, message: err.message });
    }
  });
  errors.push(...importRows(inputs).errors);
  if (errors.length > 0)
    return refuseRows(
      reply,
      errors.sort((x, y) => x.line - y.line),
    );

  const out = new PassThrough();
  const line = (value: unknown) => out.write(JSON.stringify(value) + '\n');
  line({ total: inputs.length });
  // Each progress line gets a turn of the event loop to leave: SQLite's writes would otherwise hold it to the end.
  importListContacts(ctx, account.id, listKey, inputs, async (written) => {
    line({ written });
    await new Promise((resolve) => setImmediate(resolve));
  })
    .then((result) => {
      if (result.errors.length > 0)
        line({
          failed: true,
          errors: result.errors.slice(0, MAX_ERRORS_SHOWN),
          error_count: result.errors.length,
        });
      else line({ done: true, written: result.written });
    })
    .catch((err) => {
      request.log.error({ err }, 'contact import failed');
      line({
        failed: true,
        message: err instanceof ApiError ? err.message : 'the import failed; nothing was written',
      });
    })
    .finally(() => out.end());
  return reply.type('application/x-ndjson; charset=utf-8').send(out);
}

function refuseRows(reply: FastifyReply, errors: ImportRowError[]) {
  return reply.code(400).send({
    success: false,
    status: 400,
    code: 'import_rows',
    message: `${errors.length} rows are not valid; nothing was imported`,
    errors: errors.slice(0, MAX_ERRORS_SHOWN),
    error_count: errors.length,
  });
}
