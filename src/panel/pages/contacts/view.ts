import type { FastifyInstance } from 'fastify';
import { listsOf } from '../../../features/lists/service.js';
import { contactCountsOf } from '../../../features/contacts/service.js';
import { html } from '../../html.js';
import { accountOf, csrfField, formatNumber, type Section, type Shared } from '../../view.js';
import { MAX_IMPORT_ROWS, registerContactActions } from './actions.js';

/** Contact lists: create, import a CSV (a bad row imports nothing; progress while it is written), export. */
export function contactsPage(scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  const section: Section = {
    path: '/panel/contacts',
    title: 'contacts',
    who: 'account',
    async render(v) {
      const account = accountOf(v);
      const lists = await listsOf(ctx, account.id);
      const counts = await contactCountsOf(ctx, account.id);
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
                          <td data-testid="contact-count">${formatNumber(v, counts.get(l.list_key) ?? 0)}</td>
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
  registerContactActions(scope, shared, section);
  return section;
}
