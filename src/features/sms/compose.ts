import type { AppContext } from '../../context.js';
import { callerById } from '../../accounts/index.js';
import { channelNumbers } from '../../phone/accepted.js';
import { pricesFor } from '../../messaging/prices.js';
import { isGsm7, toGsm7 } from '../../text/gsm7.js';
import { numbersOfList } from '../contacts/service.js';
import { ApiError } from '../../http/errors.js';
import { acceptRecipients } from '../../messaging/accept.js';
import { textCapacity, textRulesOf } from './rules.js';
import { asHttpError } from './refusals.js';

// What a compose form asks before it sends (the panel's Send page): the recipients of a list, and what a text will
// become and cost. The send itself is sendSms (service.ts).

/** A contact list's numbers, with their country codes, as /sms/send takes them with find_country_code 1 (501 at most). */
export const listRecipients = async (ctx: Pick<AppContext, 'db'>, accountId: number, listKey: string) =>
  (await numbersOfList(ctx, accountId, listKey, 501)).join(',');

export interface SendPreview {
  length: number;
  max: number;
  text: string;
  /** Each character the send changes, as `é → e`. */
  changed: string[];
  recipients: number;
  /** Credit units the send would cost. */
  units: number;
  /** Why the numbers would be refused (the API's message), or null. */
  problem: string | null;
}

/**
 * The text as the send composes it (with Unicode on, a text GSM-7 cannot hold is kept as written), its length and
 * parts, and the price per recipient as the send will charge it: prefix prices make one number dearer than another.
 * `numbers` is /sms/send's comma-separated list; `fromList` says it came from a contact list (country codes included).
 */
export async function previewSend(
  ctx: Pick<AppContext, 'db' | 'prices' | 'config'>,
  accountId: number,
  message: string,
  recipients: () => Promise<{ numbers: string; fromList: boolean }>,
): Promise<SendPreview> {
  const rules = textRulesOf(await callerById(ctx, accountId));
  const kept = rules.unicode && !isGsm7(message);
  const text = kept ? message : toGsm7(message);
  const changed = kept
    ? []
    : [...new Set([...message].filter((ch) => toGsm7(ch) !== ch))].map((ch) => `${ch} → ${toGsm7(ch) || '∅'}`);
  const capacity = textCapacity(text, rules);
  let numbers: string[] = [];
  let problem: string | null = null;
  try {
    const typed = await recipients();
    if (typed.numbers !== '') {
      const rule = channelNumbers(ctx.config, 'sms');
      numbers = acceptRecipients(typed.numbers, {
        findCountryCode: typed.fromList,
        countryCode: '52',
        numbers: rule,
      }).map((r) => r.number);
    }
  } catch (err) {
    const answer = asHttpError(err);
    if (!(answer instanceof ApiError)) throw err;
    problem = answer.message;
  }
  const { prices } = await pricesFor(ctx.db.kysely, ctx.prices, accountId, 'sms', numbers);
  const units = prices.reduce((sum, p) => sum + p.units, 0) * capacity.parts;
  return { length: capacity.length, max: capacity.max, text, changed, recipients: numbers.length, units, problem };
}
