import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../../http/errors.js';
import { parse } from '../../../http/validate.js';
import { toCredits } from '../../../accounts/credits.js';
import { selectCaller } from '../../../accounts/index.js';
import { SendBody } from '../../../features/sms/schemas.js';
import { sendSms } from '../../../features/sms/service.js';
import { MAX_SMS_LENGTH, parseRecipients, textCapacity, textRulesOf } from '../../../features/sms/rules.js';
import { channelNumbers } from '../../../phone/accepted.js';
import { listOrFail } from '../../../features/contacts/service.js';
import { allLists } from '../../../features/lists/service.js';
import { pricesFor } from '../../../messaging/prices.js';
import { isGsm7, toGsm7 } from '../../../text/gsm7.js';
import { html } from '../../html.js';
import {
  accountOf,
  csrfField,
  field,
  formatNumber,
  makeView,
  registerAction,
  typed,
  type Section,
  type Shared,
  type View,
} from '../../view.js';

/** A contact list's numbers, with their country codes, as /sms/send takes them with find_country_code 1. */
async function listNumbers(v: View, listKey: string): Promise<string> {
  const db = v.ctx.db.kysely;
  const list = await listOrFail(db, accountOf(v).id, listKey);
  const rows = await db
    .selectFrom('contacts')
    .select('number')
    .where('list_id', '=', list.id)
    .orderBy('id')
    .limit(501)
    .execute();
  return rows.map((r) => r.number).join(',');
}

/** The typed numbers (commas, spaces or lines) as /sms/send's comma-separated list. */
const typedNumbers = (text: string) =>
  text
    .split(/[\s,;]+/)
    .filter((n) => n !== '')
    .join(',');

/** A datetime-local value (Mexico City wall time) as /sms/send's date: YYYY-MM-DD HH:MM:SS. */
const sendDate = (value: string) =>
  value === '' ? undefined : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? `${value.replace('T', ' ')}:00` : value;

/**
 * Compose an SMS: the same rules as POST /sms/send (sendSms), to typed
 * numbers or a contact list, with sandbox and scheduling. The live counter
 * asks the service (POST /panel/send/preview), so the browser never holds a
 * second copy of the GSM-7 rules or the price.
 */
export function sendPage(scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  const db = ctx.db.kysely;
  const section: Section = {
    path: '/panel/send',
    title: 'send',
    who: 'account',
    async render(v, shown) {
      const lists = await allLists(db, accountOf(v).id);
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

  scope.post('/send/preview', { schema: { hide: true }, config: { panel: 'account' } }, async (request) => {
    const v = makeView(ctx, shared.assets(), request);
    const body = (request.body ?? {}) as Record<string, string>;
    const message = field(body, 'message').slice(0, 2000);
    const caller = await selectCaller(db).where('accounts.id', '=', accountOf(v).id).executeTakeFirstOrThrow();
    const rules = textRulesOf(caller);
    // As the send composes it: with Unicode on, a text GSM-7 cannot hold is kept as written.
    const kept = rules.unicode && !isGsm7(message);
    const text = kept ? message : toGsm7(message);
    const changed = kept
      ? []
      : [...new Set([...message].filter((ch) => toGsm7(ch) !== ch))].map((ch) => `${ch} → ${toGsm7(ch) || '∅'}`);
    const capacity = textCapacity(text, rules);
    let numbers: string[] = [];
    let problem: string | null = null;
    try {
      const typed = field(body, 'list')
        ? await listNumbers(v, field(body, 'list'))
        : typedNumbers(field(body, 'numbers'));
      if (typed !== '') {
        const rule = channelNumbers(ctx.config, 'sms');
        numbers = parseRecipients(typed, {
          findCountryCode: field(body, 'list') !== '',
          countryCode: '52',
          numbers: rule,
        }).map((r) => r.number);
      }
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      problem = err.message;
    }
    // Priced per recipient as the send will be: prefix prices make one number dearer than another.
    const { prices } = await pricesFor(db, ctx.prices, accountOf(v).id, 'sms', numbers);
    return {
      length: capacity.length,
      max: capacity.max,
      text,
      changed,
      recipients: numbers.length,
      cost: formatNumber(v, toCredits(prices.reduce((sum, p) => sum + p.units, 0) * capacity.parts)),
      problem,
    };
  });

  registerAction(scope, shared, section, 'submit', async (_request, v, body) => {
    // The API's per-second send limit, on the same bucket (a sub-account without its own limit shares its parent's).
    const caller = await selectCaller(db).where('accounts.id', '=', accountOf(v).id).executeTakeFirstOrThrow();
    await ctx.rateLimiter.consume(caller.rate_bucket, caller.rate_limit_per_sec);
    const fromList = field(body, 'list') !== '';
    const input = parse(
      SendBody,
      {
        numbers: fromList ? await listNumbers(v, field(body, 'list')) : typedNumbers(field(body, 'numbers')),
        find_country_code: fromList ? 1 : 0,
        message: body.message ?? '',
        name: field(body, 'name') || undefined,
        date: sendDate(field(body, 'date')),
        sandbox: body.sandbox === '1' ? 1 : 0,
      },
      'sms_04',
    );
    const result = await sendSms(ctx, accountOf(v).id, input, textRulesOf(caller));
    return { done: 'sent_ok', count: result.total_messages };
  });
  return section;
}
