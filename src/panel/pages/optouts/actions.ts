import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
import { csvImports } from '../../csv-import.js';
import { numbersOfCsv } from '../../optouts-csv.js';
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
  /** One import at a time per family (429 import_busy). */
  const importing = csvImports();
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

async function importCsv(
  shared: Shared,
  run: ReturnType<typeof csvImports>,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const { ctx } = shared;
  const accountId = accountOf(makeView(ctx, shared.assets(), request)).id;
  return run(request, reply, {
    name: 'opt-out',
    family: await listOwnerOf(ctx, accountId),
    limits: { rows: MAX_OPTOUT_ROWS, bytes: MAX_OPTOUT_BYTES, shown: MAX_ERRORS_SHOWN },
    read: numbersOfCsv,
    async check(numbers) {
      if (!(await fitsOnListOf(ctx, accountId, numbers, ctx.config.OPTOUT_LIST_LIMIT)))
        throw refuse(400, 'import_list_full', { max: ctx.config.OPTOUT_LIST_LIMIT });
    },
    // Importing the file again finishes it: a listed number is skipped.
    write: (numbers, written) => importOptoutsOf(ctx, accountId, numbers, written),
    failed: (_err, written) => `the import stopped after ${written} numbers; import the file again`,
  });
}
