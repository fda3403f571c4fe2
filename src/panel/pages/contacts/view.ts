import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { parse as parseCsv } from 'csv-parse/sync';
import { ApiError } from '../../../http/errors.js';
import { parse } from '../../../http/validate.js';
import { addList, allLists } from '../../../features/lists/service.js';
import { AddBody } from '../../../features/lists/schemas.js';
import { ContactBody } from '../../../features/contacts/schemas.js';
import {
  importContacts,
  importRows,
  listOrFail,
  type ContactInput,
  type ImportRowError,
} from '../../../features/contacts/service.js';
import { html } from '../../html.js';
import { sendCsv } from '../../csv.js';
import {
  accountOf,
  csrfField,
  formatNumber,
  makeView,
  refuse,
  registerAction,
  type Section,
  type Shared,
} from '../../view.js';

/** One import: at most this many rows and bytes (a bigger file is split). */
export const MAX_IMPORT_ROWS = 50_000;
const MAX_IMPORT_BYTES = 20 * 1024 * 1024;
/** Errors listed back to the browser; the count says how many there are in all. */
const MAX_ERRORS_SHOWN = 100;
const EXPORT_COLUMNS = [
  'number',
  'country_code',
  'name',
  'email',
  'birthday_date',
  'custom_field_1',
  'custom_field_2',
  'custom_field_3',
  'custom_field_4',
  'street',
  'zip',
] as const;

/** Contact lists: create, import a CSV (all or nothing, with progress), export. */
export function contactsPage(scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  const db = ctx.db.kysely;
  const section: Section = {
    path: '/panel/contacts',
    title: 'contacts',
    who: 'account',
    async render(v) {
      const account = accountOf(v);
      const lists = await allLists(db, account.id);
      const counts = await db
        .selectFrom('contacts')
        .select(['list_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('account_id', '=', account.id)
        .groupBy('list_id')
        .execute();
      const ids = await db
        .selectFrom('contact_lists')
        .select(['id', 'list_key'])
        .where('account_id', '=', account.id)
        .execute();
      const countOf = (key: string) =>
        Number(counts.find((c) => Number(c.list_id) === Number(ids.find((i) => i.list_key === key)?.id))?.n ?? 0);
      return html`<section class="card" aria-labelledby="lists-title">
        <h2 id="lists-title">${v.t('lists')}</h2>
        ${
          lists.length === 0
            ? html`<p>${v.t('no_lists')}</p>`
            : html`<div class="scroll">
                <table class="stack" data-testid="lists">
                  <thead>
                    <tr>
                      <th scope="col">${v.t('name')}</th>
                      <th scope="col">${v.t('contacts')}</th>
                      <th scope="col">${v.t('actions')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${lists.map(
                      (l) =>
                        html`<tr data-list="${l.list_key}">
                          <td>${l.agenda_name}</td>
                          <td data-testid="contact-count">${formatNumber(v, countOf(l.list_key))}</td>
                          <td>
                            <form
                              class="import"
                              data-import="/panel/contacts/import?list=${encodeURIComponent(l.list_key)}"
                              data-done="${v.t('import_done', { count: '{count}' })}"
                              data-failed="${v.t('import_failed')}"
                              data-line="${v.t('line')}"
                            >
                              ${csrfField(v)}
                              <label for="file-${l.list_key}">${v.t('import_csv')} (${l.agenda_name})</label>
                              <input id="file-${l.list_key}" name="file" type="file" accept=".csv,text/csv" required />
                              <button type="submit" class="small">${v.t('import')}</button>
                              <progress max="1" value="0" hidden aria-label="${v.t('import_progress')}"></progress>
                              <p class="import-status" role="status"></p>
                              <ul class="import-errors error" role="alert" hidden></ul>
                            </form>
                            <a href="/panel/contacts/export?list=${encodeURIComponent(l.list_key)}" download
                              >${v.t('export_csv')}</a
                            >
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
        }
        <p class="help">${v.t('import_help', { max: formatNumber(v, MAX_IMPORT_ROWS) })}</p>
        <h3>${v.t('create_list')}</h3>
        <form method="post" action="/panel/contacts/create-list" class="row">
          ${csrfField(v)} <label for="list-name">${v.t('name')}</label
          ><input id="list-name" name="agenda_name" required maxlength="100" />
          <button type="submit">${v.t('create_list')}</button>
        </form>
      </section>`;
    },
  };

  registerAction(scope, shared, section, 'create-list', async (_request, v, body) => {
    await addList(db, accountOf(v).id, parse(AddBody, body, 'agenda_01'));
    return { done: 'list_created' };
  });

  scope.register(async (importer) => {
    importer.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: MAX_IMPORT_BYTES }, (_req, body, done) =>
      done(null, body),
    );
    /**
     * The CSV's header names the fields of /contacts/add (number required).
     * Every row is checked first: any error answers 400 with the errors per
     * line and writes nothing. Otherwise the answer streams progress lines
     * (NDJSON) while one transaction writes every row.
     */
    importer.post(
      '/contacts/import',
      { schema: { hide: true }, config: { panel: 'account', panelBodyLimit: MAX_IMPORT_BYTES } },
      async (request, reply) => {
        const v = makeView(ctx, shared.assets(), request);
        const account = accountOf(v);
        const listKey = String((request.query as { list?: string }).list ?? '');
        await listOrFail(db, account.id, listKey);
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
        importContacts(db, account.id, listKey, inputs, async (written) => {
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
      },
    );
  });

  scope.get('/contacts/export', { schema: { hide: true }, config: { panel: 'account' } }, async (request, reply) => {
    const v = makeView(ctx, shared.assets(), request);
    const list = await listOrFail(db, accountOf(v).id, String((request.query as { list?: string }).list ?? ''));
    const page = (after: number) =>
      db
        .selectFrom('contacts')
        .select(['id', ...EXPORT_COLUMNS])
        .where('list_id', '=', list.id)
        .where('id', '>', after)
        .orderBy('id')
        .limit(2000)
        .execute();
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

  return section;
}

function refuseRows(reply: import('fastify').FastifyReply, errors: ImportRowError[]) {
  return reply.code(400).send({
    success: false,
    status: 400,
    code: 'import_rows',
    message: `${errors.length} rows are not valid; nothing was imported`,
    errors: errors.slice(0, MAX_ERRORS_SHOWN),
    error_count: errors.length,
  });
}
