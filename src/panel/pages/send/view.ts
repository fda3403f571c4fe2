import type { FastifyInstance } from 'fastify';
import { MAX_SMS_LENGTH } from '../../../features/sms/rules.js';
import { listsOf } from '../../../features/lists/service.js';
import { html } from '../../html.js';
import { accountOf, csrfField, typed, type Section, type Shared } from '../../view.js';
import { registerSendActions } from './actions.js';

/**
 * Compose an SMS: the same rules as POST /sms/send (sendSms), to typed
 * numbers or a contact list, with sandbox and scheduling. The live counter
 * asks the service (POST /panel/send/preview), so the browser never holds a
 * second copy of the GSM-7 rules or the price.
 */
export function sendPage(scope: FastifyInstance, shared: Shared): Section {
  const section: Section = {
    path: '/panel/send',
    title: 'send',
    who: 'account',
    async render(v, shown) {
      const lists = await listsOf(shared.ctx, accountOf(v).id);
      const was = (name: string) => typed(shown, name);
      return html`<section class="card narrow-wide">
        <form method="post" action="/panel/send/submit" data-preview="/panel/send/preview">
          ${csrfField(v)}
          <label for="numbers">${v.t('numbers')}</label>
          <textarea id="numbers" name="numbers" rows="3" aria-describedby="numbers-help" spellcheck="false">
${was('numbers')}</textarea>
          <p id="numbers-help" class="help">${v.t('numbers_help')}</p>
          <label for="list">${v.t('or_list')}</label>
          <select id="list" name="list">
            <option value="">${v.t('none')}</option>
            ${lists.map((l) => html`<option value="${l.list_key}" ${was('list') === l.list_key ? html` selected` : ''}>${l.agenda_name}</option>`)}
          </select>
          <label for="message">${v.t('message')}</label>
          <textarea id="message" name="message" rows="4" maxlength="2000" required aria-describedby="counter">
${was('message')}</textarea>
          <p
            class="help"
            id="counter"
            role="status"
            aria-live="polite"
            data-testid="counter"
            data-format="${v.t('counter', { length: '{length}', max: '{max}', recipients: '{recipients}', cost: '{cost}' })}"
            data-changed="${v.t('transliterated_as')}"
          >
            ${v.t('counter', { length: 0, max: MAX_SMS_LENGTH, recipients: 0, cost: 0 })}
          </p>
          <p class="help" id="changed" data-testid="transliterated"></p>
          <label for="name">${v.t('campaign_name')}</label>
          <input id="name" name="name" maxlength="100" value="${was('name')}" />
          <label for="date">${v.t('schedule')}</label>
          <input id="date" name="date" type="datetime-local" aria-describedby="date-help" value="${was('date')}" />
          <p id="date-help" class="help">${v.t('schedule_help')}</p>
          <label
            ><input type="checkbox" name="sandbox" value="1" ${was('sandbox') === '1' ? html` checked` : ''} />
            ${v.t('sandbox_help')}</label
          >
          <button type="submit">${v.t('send')}</button>
        </form>
      </section>`;
    },
  };
  registerSendActions(scope, shared, section);
  return section;
}
