import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { parse as parseCsv } from 'csv-parse/sync';
import { parse } from '../../http/validate.js';
import { formatLocal } from '../../lib/time.js';
import { NumbersBody } from '../../features/optouts/schemas.js';
import {
  fullNumber,
  optIn,
  optOut,
  optoutPage,
  parseNumbers,
  PAGE_SIZE,
  type OptoutEntry,
} from '../../features/optouts/service.js';
import { listOwner } from '../../messaging/optouts.js';
import { html } from '../html.js';
import { sendCsv } from '../csv.js';
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
} from '../view.js';

/** One import: at most this many rows and bytes (a national do-not-contact list is split into files of this size). */
export const MAX_OPTOUT_ROWS = 200_000;
const MAX_OPTOUT_BYTES = 8 * 1024 * 1024;
const MAX_ERRORS_SHOWN = 100;
/** Numbers written per statement batch during an import (a progress line after each). */
const WRITE_BATCH = 5_000;

/** The family's opt-out list: add, remove, import a CSV (all or nothing), export. */
export function optoutsPage(scope: FastifyInstance, shared: Shared): Section {
  const db = shared.ctx.db.kysely;
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
      const entries = await optoutPage(db, account.id, 1);
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
    importer.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: MAX_OPTOUT_BYTES }, (_req, body, done) =>
      done(null, body),
    );
    importer.post(
      '/optouts/import',
      { schema: { hide: true }, config: { panel: 'account', panelBodyLimit: MAX_OPTOUT_BYTES } },
      async (request, reply) => {
        const v = makeView(shared.ctx, shared.assets(), request);
        if (typeof request.body !== 'string') throw refuse(415, 'import_csv_only');
        const { numbers, errors } = numbersOfCsv(request.body);
        if (errors.length > 0) return refuseRows(reply, errors);
        const out = new PassThrough();
        const line = (value: unknown) => out.write(JSON.stringify(value) + '\n');
        line({ total: numbers.length });
        const accountId = accountOf(v).id;
        db.transaction()
          .execute(async (trx) => {
            let added = 0;
            for (let i = 0; i < numbers.length; i += WRITE_BATCH) {
              added += await optOut(trx, accountId, numbers.slice(i, i + WRITE_BATCH), 'panel');
              line({ written: Math.min(i + WRITE_BATCH, numbers.length) });
              await new Promise((resolve) => setImmediate(resolve));
            }
            return added;
          })
          .then(() => line({ done: true, written: numbers.length }))
          .catch((err) => {
            request.log.error({ err }, 'opt-out import failed');
            line({ failed: true, message: 'the import failed; nothing was written' });
          })
          .finally(() => out.end());
        return reply.type('application/x-ndjson; charset=utf-8').send(out);
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

interface RowError {
  line: number;
  code: string;
  message: string;
}

/**
 * The numbers of an opt-out CSV: the first column of every row (10 digits
 * with country code 52, or + and the full number), or the columns `number`
 * and `country_code` when the first row names them. Every row is checked.
 * A leading apostrophe (how the export keeps +52… as text) is dropped.
 */
function numbersOfCsv(text: string): { numbers: string[]; errors: RowError[] } {
  let rows: string[][];
  try {
    rows = parseCsv(text, {
      bom: true,
      skip_empty_lines: true,
      trim: true,
      relax_column_count: true,
      max_record_size: 1024,
    });
  } catch (err) {
    throw refuse(400, 'import_malformed', { detail: String((err as Error).message).slice(0, 200) });
  }
  const header = rows[0]?.map((c) => c.toLowerCase());
  const named = header?.includes('number') ?? false;
  const [numberAt, ccAt] = named ? [header!.indexOf('number'), header!.indexOf('country_code')] : [0, -1];
  const body = named ? rows.slice(1) : rows;
  if (body.length === 0) throw refuse(400, 'import_empty');
  if (body.length > MAX_OPTOUT_ROWS) throw refuse(400, 'import_too_many', { max: MAX_OPTOUT_ROWS });
  const numbers = new Set<string>();
  const errors: RowError[] = [];
  body.forEach((row, i) => {
    const cc = ccAt >= 0 && row[ccAt] ? row[ccAt] : '52';
    const full = /^\+?\d{1,3}$/.test(cc) ? fullNumber((row[numberAt] ?? '').replace(/^'/, ''), cc) : null;
    if (full) numbers.add(full);
    else
      errors.push({
        line: i + (named ? 2 : 1),
        code: 'optout_05',
        message: `malformed number: ${String(row[numberAt] ?? '').slice(0, 20)}`,
      });
  });
  return { numbers: [...numbers], errors };
}

function refuseRows(reply: FastifyReply, errors: RowError[]) {
  return reply.code(400).send({
    success: false,
    status: 400,
    code: 'import_rows',
    message: `${errors.length} rows are not valid; nothing was imported`,
    errors: errors.slice(0, MAX_ERRORS_SHOWN),
    error_count: errors.length,
  });
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
