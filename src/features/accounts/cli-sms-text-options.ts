import type { Account } from '../../accounts/index.js';
import { MAX_LONG_PARTS } from '../sms/rules.js';
import { CliError } from '../../cli/runner.js';

/** The options of `accounts set` for what the account may send over HTTP. */
export const SMS_TEXT_OPTIONS = [
  [
    '--long-sms <on|off|default>',
    `long SMS over HTTP: up to ${MAX_LONG_PARTS} concatenated parts, each charged (default: as the parent; off at the top)`,
  ],
  [
    '--unicode <on|off|default>',
    'texts GSM-7 cannot hold go as UCS-2 instead of being replaced (default: as the parent; off at the top)',
  ],
] as const;

/** on → 1, off → 0, default → null (as the parent). */
function setting(value: string, option: string): number | null {
  if (value === 'on') return 1;
  if (value === 'off') return 0;
  if (value === 'default') return null;
  throw new CliError(`${option} is on, off or default`, { code: option.slice(2).replaceAll('-', '_') });
}

/** The columns the options change, validated. */
export function smsTextChanges(o: {
  longSms?: string;
  unicode?: string;
}): Partial<Pick<Account, 'long_sms' | 'unicode_sms'>> {
  const changes: Partial<Pick<Account, 'long_sms' | 'unicode_sms'>> = {};
  if (o.longSms !== undefined) changes.long_sms = setting(o.longSms, '--long-sms');
  if (o.unicode !== undefined) changes.unicode_sms = setting(o.unicode, '--unicode');
  return changes;
}
