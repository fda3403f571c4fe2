import type { Command } from 'commander';
import { thresholdUnits, toCredits, toUnits } from '../../accounts/credits.js';
import type { AccountSettingChanges } from '../../accounts/index.js';
import { normaliseAllowList } from '../../auth/allow-list.js';
import { parseMoney } from '../../lib/money.js';
import { DEFAULT_PRICES } from '../../messaging/pricing.js';
import type { Channel } from '../../messaging/types.js';
import { OPTOUT_OPTIONS } from './cli-optout-options.js';
import { SMS_TEXT_OPTIONS, smsTextChanges } from './cli-sms-text-options.js';
import { TRAFFIC_OPTIONS } from './cli-traffic-options.js';
import { PARENT_OPTION } from '../../cli/helpers.js';
import { ABUSE_OPTIONS } from './cli-abuse-options.js';
import { CliError } from '../../cli/runner.js';

// How `accounts` commands read their options: each value checked, a refused one a CliError (exit code 2).

export const number = (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new CliError(`not a number: ${v}`, { code: 'not_a_number', params: { value: v } });
  return n;
};

const PRICE_OPTIONS: Array<[Channel, string]> = [
  ['sms', 'priceSms'],
  ['rcs', 'priceRcs'],
  ['chatapp', 'priceChatapp'],
  ['voice', 'priceVoice'],
];

/** The --price-<channel> options given, validated: a price is zero or more credits, at most 4 decimals (one unit). */
export function priceOptions(o: Record<string, unknown>): Array<[Channel, number]> {
  const prices: Array<[Channel, number]> = [];
  for (const [channel, key] of PRICE_OPTIONS) {
    const value = o[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || value < 0 || value > 1_000_000 || toCredits(toUnits(value)) !== value) {
      throw new CliError(`--price-${channel} is a number of credits from 0 to 1000000 with at most 4 decimals`, {
        code: 'price',
        params: { channel },
      });
    }
    prices.push([channel, value]);
  }
  return prices;
}

/** --credit-value: money per credit (ten-thousandths), or null for `default` (CREDIT_VALUE, or the parent's). */
function creditValueOption(value: string): number | null {
  if (value === 'default') return null;
  const amount = parseMoney(value);
  if (amount === null)
    throw new CliError('--credit-value is an amount of money with at most 4 decimals, or default', {
      code: 'credit_value',
    });
  return amount;
}

/**
 * The new account's password: --password-stdin (first line of standard
 * input), else --password (kept for scripts; the
 * process list shows it to every local user), else MENSAJERO_PASSWORD.
 */
export async function passwordFrom(o: { passwordStdin?: boolean; password?: string }): Promise<string> {
  let password: string | undefined;
  if (o.passwordStdin) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    password = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
  } else password = o.password || process.env.MENSAJERO_PASSWORD;
  if (!password)
    throw new CliError(
      'no password: pipe it with --password-stdin or set MENSAJERO_PASSWORD (--password works but shows it in the process list)',
    );
  return password;
}

/** --low-balance N (credits, at most 4 decimals) or off; a new threshold is armed: the next debit below it is reported. */
function lowBalanceSetting(value: string): { low_balance_units: number | null; low_balance_sent: number } {
  const units = value.trim() === '' ? undefined : thresholdUnits(value);
  if (units === undefined)
    throw new CliError('--low-balance is a number of credits above 0 with at most 4 decimals, or off', {
      code: 'low_balance',
    });
  return { low_balance_units: units, low_balance_sent: 0 };
}

const isAllowEntry = (entry: string) => {
  try {
    normaliseAllowList([entry]);
    return true;
  } catch {
    return false;
  }
};

/** --allow-ip: CIDRs separated by commas (stored as JSON), or none. */
function allowIpSetting(value: string): string | null {
  if (value === 'none' || value === '') return null;
  try {
    return JSON.stringify(
      normaliseAllowList(
        String(value)
          .split(',')
          .filter((s) => s.trim() !== ''),
      ),
    );
  } catch (err) {
    const entry = String(value)
      .split(',')
      .find((s) => s.trim() !== '' && !isAllowEntry(s.trim()));
    throw new CliError((err as Error).message, { code: 'allow_ip', params: { value: entry ?? '' } });
  }
}

/** --daily-spend N (credits per Mexico City day for the family, at most 4 decimals) or none: units, or null; undefined when not given. */
export function dailySpendOption(o: Record<string, any>): number | null | undefined {
  if (o.dailySpend === undefined) return undefined;
  if (o.dailySpend === 'none') return null;
  const units = String(o.dailySpend).trim() === '' ? undefined : thresholdUnits(String(o.dailySpend));
  if (units === undefined || units === null)
    throw new CliError('--daily-spend is a number of credits above 0 with at most 4 decimals, or none', {
      code: 'daily_spend',
    });
  return units;
}

/** The options of `accounts set` that change the account's row, checked. */
export function settingChanges(o: Record<string, any>): AccountSettingChanges {
  const changes: AccountSettingChanges = smsTextChanges(o);
  if (o.lowBalance !== undefined) Object.assign(changes, lowBalanceSetting(o.lowBalance));
  if (o.creditValue !== undefined) changes.credit_value = creditValueOption(o.creditValue);
  if (o.webhookMethod !== undefined) {
    const m = String(o.webhookMethod).toUpperCase();
    if (m !== 'GET' && m !== 'POST') throw new CliError('--webhook-method is GET or POST', { code: 'webhook_method' });
    changes.webhook_method = m;
  }
  if (o.allowIp !== undefined) changes.allow_ips = allowIpSetting(o.allowIp);
  if (o.panelAllowIp !== undefined) {
    if (o.panelAllowIp !== 'on' && o.panelAllowIp !== 'off')
      throw new CliError('--panel-allow-ip is on or off', { code: 'panel_allow_ip' });
    changes.panel_allow_ip = o.panelAllowIp === 'on' ? 1 : 0;
  }
  if (o.rateLimit !== undefined) {
    if (!Number.isInteger(o.rateLimit) || o.rateLimit < 1)
      throw new CliError('--rate-limit is a positive integer', { code: 'rate_limit' });
    changes.rate_limit_per_sec = o.rateLimit;
  }
  if (o.maxSubaccounts !== undefined) {
    const n = o.maxSubaccounts === 'default' ? null : Number(o.maxSubaccounts);
    if (n !== null && (!Number.isInteger(n) || n < 0))
      throw new CliError('--max-subaccounts is a whole number (0 forbids sub-accounts) or default', {
        code: 'max_subaccounts',
      });
    changes.max_subaccounts = n;
  }
  return changes;
}

/** The options of `accounts set`. */
export function settingOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option('--webhook-method <method>', 'GET or POST')
    .option('--allow-ip <cidrs>', 'comma-separated CIDRs, or none')
    .option('--panel-allow-ip <on|off>', 'apply the allow-list to the panel too (a parent: its sub-accounts too)')
    .option('--rate-limit <n>', 'message-sending requests per second (default: RATE_LIMIT_PER_SECOND)', number)
    .option('--max-subaccounts <n>', 'sub-accounts this account may have, or default (SUBACCOUNTS_PER_ACCOUNT)')
    .option('--price-sms <n>', `credits per SMS (default ${DEFAULT_PRICES.sms})`, number)
    .option('--price-rcs <n>', `credits per RCS message (default ${DEFAULT_PRICES.rcs})`, number)
    .option('--price-chatapp <n>', `credits per chat-app message (default ${DEFAULT_PRICES.chatapp})`, number)
    .option('--price-voice <n>', `credits per voice call (default ${DEFAULT_PRICES.voice})`, number)
    .option(...OPTOUT_OPTIONS[0])
    .option(...OPTOUT_OPTIONS[1])
    .option('--low-balance <n>', 'credits below which the account gets one low_balance event per crossing, or off')
    .option('--credit-value <amount>', 'money per credit, up to 4 decimals, or default (CREDIT_VALUE)')
    .option('--daily-spend <n>', 'credits the family may spend per Mexico City day (a top-level account), or none')
    .option(...SMS_TEXT_OPTIONS[0])
    .option(...SMS_TEXT_OPTIONS[1])
    .option(...ABUSE_OPTIONS[0])
    .option(...ABUSE_OPTIONS[1])
    .option(...ABUSE_OPTIONS[2])
    .option(...ABUSE_OPTIONS[3])
    .option(...TRAFFIC_OPTIONS[0])
    .option(...TRAFFIC_OPTIONS[1])
    .option(...TRAFFIC_OPTIONS[2])
    .option('--json', 'print one JSON object');
}
