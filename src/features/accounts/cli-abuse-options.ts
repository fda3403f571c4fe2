import type { SendRulesChanges } from '../../messaging/send-rules.js';
import { CliError } from '../../cli/runner.js';

/** The most a destination cap may be set to: far above any honest hour to one number. */
const MAX_CAP = 1_000_000;

/** `accounts set`'s options of the abuse controls (docs/operators/abuse-controls.md). */
export const ABUSE_OPTIONS: Array<[string, string]> = [
  ['--countries <codes>', "destination country codes of the family's sends on every channel (e.g. 52,1), or any"],
  ['--senders <registered|any>', 'registered: a sender not registered to the account is refused (sms_47)'],
  ['--max-per-number-hour <n>', 'messages to one number per hour, or default (DESTINATION_MAX_PER_NUMBER_HOUR)'],
  [
    '--max-same-text-hour <n>',
    'messages with one text to one number per hour, or default (DESTINATION_MAX_SAME_TEXT_HOUR)',
  ],
];

function capOption(name: string, value: unknown): number | null {
  const text = String(value).trim();
  if (text === 'default') return null;
  if (!/^\d{1,7}$/.test(text) || Number(text) < 1 || Number(text) > MAX_CAP)
    throw new CliError(`--${name} is a whole number from 1 to ${MAX_CAP}, or default`, {
      code: name.replaceAll('-', '_'),
      params: { max: MAX_CAP },
    });
  return Number(text);
}

/** The abuse settings given to `accounts set`, checked. */
export function abuseChanges(o: Record<string, unknown>): SendRulesChanges {
  const changes: SendRulesChanges = {};
  if (o.countries !== undefined) {
    const value = String(o.countries).trim();
    if (value === 'any') changes.countries = null;
    else {
      const codes = value.split(',').map((c) => c.trim().replace(/^\+/, ''));
      if (!codes.every((c) => /^[1-9]\d{0,2}$/.test(c)))
        throw new CliError('--countries is a comma-separated list of country codes (e.g. 52,1) or any', {
          code: 'countries',
        });
      changes.countries = [...new Set(codes)].join(',');
    }
  }
  if (o.senders !== undefined) {
    if (o.senders !== 'registered' && o.senders !== 'any')
      throw new CliError('--senders is registered or any', { code: 'senders' });
    changes.senders_registered = o.senders === 'registered' ? 1 : 0;
  }
  if (o.maxPerNumberHour !== undefined)
    changes.max_per_number_hour = capOption('max-per-number-hour', o.maxPerNumberHour);
  if (o.maxSameTextHour !== undefined) changes.max_same_text_hour = capOption('max-same-text-hour', o.maxSameTextHour);
  return changes;
}
