import type { FastifyInstance } from 'fastify';
import { listedCount, optoutPageOf, PAGE_SIZE, type OptoutEntry } from '../../../features/optouts/service.js';
import { html } from '../../html.js';
import { accountOf, csrfField, formatNumber, type Section, type Shared, type View } from '../../view.js';
import { MAX_OPTOUT_ROWS, registerOptoutActions } from './actions.js';

/** The family's opt-out list: add, remove, import a CSV (all or nothing), export. */
export function optoutsPage(scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  const section: Section = {
    path: '/panel/optouts',
    title: 'optouts',
    who: 'account',
    async render(v) {
      const account = accountOf(v);
      const n = await listedCount(ctx, account.id);
      const entries = (await optoutPageOf(ctx, account.id, { page: 1 }, ctx.config.OPTOUT_LIST_LIMIT)) ?? [];
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
  registerOptoutActions(scope, shared, section);
  return section;
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
