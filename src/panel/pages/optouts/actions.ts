import { PassThrough, Readable } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WithDb } from '../../../context.js';
import { parse } from '../../../http/validate.js';
import { formatLocal } from '../../../lib/time.js';
import { NumbersBody } from '../../../features/optouts/schemas.js';
import {
  fitsOnListOf,
  IMPORT_CHUNK,
  importOptoutsOf,
  listOwnerOf,
  optInNumbers,
  optOutNumbers,
  optoutExportPageOf,
  parseNumbers,
} from '../../../features/optouts/service.js';
import { sendCsv } from '../../csv.js';
import { numbersOfCsv, type RowError } from '../../optouts-csv.js';
import { accountOf, makeView, refuse, registerAction, type Section, type Shared } from '../../view.js';

/** One import: at most this many rows (a national do-not-contact list is split into files of this size). */
export const MAX_OPTOUT_ROWS = 200_000;
/** And this many bytes: the row limit at 48 bytes a row (the export's rows are 42), so a body past it is refused unread. */
export const MAX_OPTOUT_BYTES = MAX_OPTOUT_ROWS * 48;
const MAX_ERRORS_SHOWN = 100;
export { IMPORT_CHUNK };

/** The Opt-outs page's routes: add, remove, import a CSV, export. */
export function registerOptoutActions(scope: FastifyInstance, shared: Shared, section: Section): void {
  const { ctx } = shared;
  /** Families with an import under way in this process: one at a time each (429 import_busy). */
  const importing = new Set<number>();
  registerAction(scope, shared, section, 'add', async (_request, v, body) => {
    const input = parse(NumbersBody, body, 'optout_05');
    const count = await optOutNumbers(ctx, accountOf(v).id, parseNumbers(input.numbers, input.country_code), 'panel');
    return { done: 'optouts_added', count };
  });
  registerAction(scope, shared, section, 'remove', async (_request, v, body) => {
    const input = parse(NumbersBody, body, 'optout_05');
    const count = await optInNumbers(ctx, accountOf(v).id, parseNumbers(input.numbers, input.country_code));
    return { done: 'optouts_removed', count };
  });

  scope.register(async (importer) => {
    // The body stays a stream: numbersOfCsv reads it as it parses, and stops at the limits.
    importer.addContentTypeParser('text/csv', (_request, payload, done) => done(null, payload));
    importer.post(
      '/optouts/import',
      { schema: { hide: true }, config: { panel: 'account', panelBodyLimit: MAX_OPTOUT_BYTES } },
      (request, reply) => importCsv(shared, importing, request, reply),
    );
  });

  scope.get('/optouts/export', { schema: { hide: true }, config: { panel: 'account' } }, async (request, reply) => {
    const owner = await listOwnerOf(ctx, accountOf(makeView(ctx, shared.assets(), request)).id);
    const page = (after: number) => optoutExportPageOf(ctx, owner, after, 2000);
    // The number with its + (as text: csvCell's apostrophe), so the file imports back whatever its country.
    return sendCsv(reply, 'optouts.csv', ['number', 'source', 'created_at'], page, (r) => [
      `+${r.number}`,
      r.source,
      formatLocal(Number(r.created_at)),
    ]);
  });
}

async function importCsv(shared: Shared, importing: Set<number>, request: FastifyRequest, reply: FastifyReply) {
  const { ctx } = shared;
  const accountId = accountOf(makeView(ctx, shared.assets(), request)).id;
  if (!(request.body instanceof Readable)) throw refuse(415, 'import_csv_only');
  // Whatever the answer, the rest of a refused body is never read: the connection closes after it.
  reply.header('connection', 'close');
  if (Number(request.headers['content-length']) > MAX_OPTOUT_BYTES)
    throw refuse(413, 'import_too_large', { max: MAX_OPTOUT_BYTES });
  const owner = await listOwnerOf(ctx, accountId);
  if (importing.has(owner)) throw refuse(429, 'import_busy');
  importing.add(owner);
  let writing = false;
  try {
    const limits = { rows: MAX_OPTOUT_ROWS, bytes: MAX_OPTOUT_BYTES, shown: MAX_ERRORS_SHOWN };
    const { numbers, errors, errorCount } = await numbersOfCsv(request.body, limits);
    if (errorCount > 0) return refuseRows(reply, errors, errorCount);
    if (!(await fitsOnListOf(ctx, accountId, numbers, ctx.config.OPTOUT_LIST_LIMIT)))
      throw refuse(400, 'import_list_full', { max: ctx.config.OPTOUT_LIST_LIMIT });
    reply.removeHeader('connection');
    writing = true;
    const out = writeImport(ctx, accountId, numbers, request.log);
    void out.finished.finally(() => importing.delete(owner));
    return reply.type('application/x-ndjson; charset=utf-8').send(out);
  } finally {
    if (!writing) importing.delete(owner);
  }
}

function refuseRows(reply: FastifyReply, errors: RowError[], count: number) {
  return reply.code(400).send({
    success: false,
    status: 400,
    code: 'import_rows',
    message: `${count} rows are not valid; nothing was imported`,
    errors,
    error_count: count,
  });
}

/**
 * The import's answer, one JSON line each: the total, then `written` after
 * each committed chunk, then `done` (or `failed`, with what was written:
 * importing the file again finishes it, a listed number is skipped).
 */
function writeImport(ctx: WithDb, accountId: number, numbers: string[], log: FastifyBaseLogger) {
  const out = new PassThrough();
  const line = (value: unknown) => out.write(JSON.stringify(value) + '\n');
  line({ total: numbers.length });
  let written = 0;
  const finished = importOptoutsOf(ctx, accountId, numbers, (count) => line({ written: (written = count) }))
    .then(() => line({ done: true, written: numbers.length }))
    .catch((err) => {
      log.error({ err }, 'opt-out import failed');
      line({ failed: true, written, message: `the import stopped after ${written} numbers; import the file again` });
    })
    .finally(() => out.end());
  return Object.assign(out, { finished });
}
