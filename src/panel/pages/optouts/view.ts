import { PassThrough, Readable } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { parse } from '../../../http/validate.js';
import { formatLocal } from '../../../lib/time.js';
import { NumbersBody } from '../../../features/optouts/schemas.js';
import {
  fitsOnList,
  IMPORT_CHUNK,
  importOptouts,
  optIn,
  optOut,
  optoutPage,
  parseNumbers,
  PAGE_SIZE,
  type OptoutEntry,
} from '../../../features/optouts/service.js';
import { listOwner } from '../../../messaging/optouts.js';
import { html } from '../../html.js';
import { sendCsv } from '../../csv.js';
import { numbersOfCsv, type RowError } from '../../optouts-csv.js';
import {
  accountOf,
  csrfField,
  formatNumber,
  makeView,
  refuse,
  registerAction,
  type Section,
  type Shared,
  type View,
} from '../../view.js';

/** One import: at most this many rows (a national do-not-contact list is split into files of this size). */
export const MAX_OPTOUT_ROWS = 200_000;
/** And this many bytes: the row limit at 48 bytes a row (the export's rows are 42), so a body past it is refused unread. */
export const MAX_OPTOUT_BYTES = MAX_OPTOUT_ROWS * 48;
const MAX_ERRORS_SHOWN = 100;
export { IMPORT_CHUNK };

/** The family's opt-out list: add, remove, import a CSV (all or nothing), export. */
export function optoutsPage(scope: FastifyInstance, shared: Shared): Section {
  const db = shared.ctx.db.kysely;
  /** Families with an import under way in this process: one at a time each (429 import_busy). */
  const importing = new Set<number>();
  const section: Section = {
    path: '/panel/optouts',
    title: 'optouts',
    who: 'account',
    async render(v) {
      const account = accountOf(v);
      const owner = await listOwner(db, account.id);
      const { n } = await db
        .selectFrom('optouts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', owner)
        .executeTakeFirstOrThrow();
      const entries = (await optoutPage(db, account.id, { page: 1 }, shared.ctx.config.OPTOUT_LIST_LIMIT)) ?? [];
      return html`<section class="card" aria-labelledby="optouts-title">
        <h2 id="optouts-title">${v.t('optouts_list')}</h2>
        <p data-testid="optout-count">${v.t('optouts_count', { count: formatNumber(v, Number(n)) })}</p>
        ${entries.length === 0 ? html`<p>${v.t('optouts_none')}</p>` : entryTable(v, entries)}
        <p><a href="/panel/optouts/export" download>${v.t('export_csv')}</a></p>
        <h3>${v.t('optouts_change')}</h3>
        ${numbersForm(v, 'add', 'optouts_add')} ${numbersForm(v, 'remove', 'optouts_remove')}
        <h3>${v.t('import_csv')}</h3>
        <form
          class="import"
          data-import="/panel/optouts/import"
          data-done="${v.t('optouts_imported', { count: '{count}' })}"
          data-failed="${v.t('import_failed')}"
          data-line="${v.t('line')}"
        >
          ${csrfField(v)}
          <label for="optouts-file">${v.t('import_csv')}</label>
          <input id="optouts-file" name="file" type="file" accept=".csv,text/csv" required />
          <button type="submit" class="small">${v.t('import')}</button>
          <progress max="1" value="0" hidden aria-label="${v.t('import_progress')}"></progress>
          <p class="import-status" role="status"></p>
          <ul class="import-errors error" role="alert" hidden></ul>
        </form>
        <p class="help">${v.t('optouts_import_help', { max: formatNumber(v, MAX_OPTOUT_ROWS) })}</p>
      </section>`;
    },
  };

  registerAction(scope, shared, section, 'add', async (_request, v, body) => {
    const input = parse(NumbersBody, body, 'optout_05');
    const count = await optOut(db, accountOf(v).id, parseNumbers(input.numbers, input.country_code), 'panel');
    return { done: 'optouts_added', count };
  });
  registerAction(scope, shared, section, 'remove', async (_request, v, body) => {
    const input = parse(NumbersBody, body, 'optout_05');
    const count = await optIn(db, accountOf(v).id, parseNumbers(input.numbers, input.country_code));
    return { done: 'optouts_removed', count };
  });

  scope.register(async (importer) => {
    // The body stays a stream: numbersOfCsv reads it as it parses, and stops at the limits.
    importer.addContentTypeParser('text/csv', (_request, payload, done) => done(null, payload));
    importer.post(
      '/optouts/import',
      { schema: { hide: true }, config: { panel: 'account', panelBodyLimit: MAX_OPTOUT_BYTES } },
      async (request, reply) => {
        const accountId = accountOf(makeView(shared.ctx, shared.assets(), request)).id;
        if (!(request.body instanceof Readable)) throw refuse(415, 'import_csv_only');
        // Whatever the answer, the rest of a refused body is never read: the connection closes after it.
        reply.header('connection', 'close');
        if (Number(request.headers['content-length']) > MAX_OPTOUT_BYTES)
          throw refuse(413, 'import_too_large', { max: MAX_OPTOUT_BYTES });
        const owner = await listOwner(db, accountId);
        if (importing.has(owner)) throw refuse(429, 'import_busy');
        importing.add(owner);
        let writing = false;
        try {
          const limits = { rows: MAX_OPTOUT_ROWS, bytes: MAX_OPTOUT_BYTES, shown: MAX_ERRORS_SHOWN };
          const { numbers, errors, errorCount } = await numbersOfCsv(request.body, limits);
          if (errorCount > 0) return refuseRows(reply, errors, errorCount);
          if (!(await fitsOnList(db, accountId, numbers, shared.ctx.config.OPTOUT_LIST_LIMIT)))
            throw refuse(400, 'import_list_full', { max: shared.ctx.config.OPTOUT_LIST_LIMIT });
          reply.removeHeader('connection');
          writing = true;
          const out = writeImport(db, accountId, numbers, request.log);
          void out.finished.finally(() => importing.delete(owner));
          return reply.type('application/x-ndjson; charset=utf-8').send(out);
        } finally {
          if (!writing) importing.delete(owner);
        }
      },
    );
  });

  scope.get('/optouts/export', { schema: { hide: true }, config: { panel: 'account' } }, async (request, reply) => {
    const owner = await listOwner(db, accountOf(makeView(shared.ctx, shared.assets(), request)).id);
    const page = (after: number) =>
      db
        .selectFrom('optouts')
        .select(['id', 'number', 'source', 'created_at'])
        .where('account_id', '=', owner)
        .where('id', '>', after)
        .orderBy('id')
        .limit(2000)
        .execute();
    // The number with its + (as text: csvCell's apostrophe), so the file imports back whatever its country.
    return sendCsv(reply, 'optouts.csv', ['number', 'source', 'created_at'], page, (r) => [
      `+${r.number}`,
      r.source,
      formatLocal(Number(r.created_at)),
    ]);
  });

  return section;
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
function writeImport(db: Kysely<Database>, accountId: number, numbers: string[], log: FastifyBaseLogger) {
  const out = new PassThrough();
  const line = (value: unknown) => out.write(JSON.stringify(value) + '\n');
  line({ total: numbers.length });
  let written = 0;
  const finished = importOptouts(db, accountId, numbers, (count) => line({ written: (written = count) }))
    .then(() => line({ done: true, written: numbers.length }))
    .catch((err) => {
      log.error({ err }, 'opt-out import failed');
      line({ failed: true, written, message: `the import stopped after ${written} numbers; import the file again` });
    })
    .finally(() => out.end());
  return Object.assign(out, { finished });
}

function entryTable(v: View, entries: OptoutEntry[]) {
  return html`<div class="scroll">
    <table class="stack" data-testid="optouts">
      <caption>
        ${v.t('optouts_first', { count: PAGE_SIZE })}
      </caption>
      <thead>
        <tr>
          <th scope="col">${v.t('number')}</th>
          <th scope="col">${v.t('optouts_source')}</th>
          <th scope="col">${v.t('created')}</th>
        </tr>
      </thead>
      <tbody>
        ${entries.map(
          (e) =>
            html`<tr>
              <td>+${e.number}</td>
              <td>${e.source}</td>
              <td>${e.created_at}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function numbersForm(v: View, action: 'add' | 'remove', label: 'optouts_add' | 'optouts_remove') {
  return html`<form method="post" action="/panel/optouts/${action}" class="row">
    ${csrfField(v)}
    <label for="optouts-${action}">${v.t('numbers')}</label>
    <input id="optouts-${action}" name="numbers" required maxlength="200000" spellcheck="false" />
    <label for="optouts-${action}-cc">${v.t('country_code')}</label>
    <input id="optouts-${action}-cc" name="country_code" value="52" size="4" inputmode="numeric" />
    <button type="submit">${v.t(label)}</button>
  </form>`;
}
