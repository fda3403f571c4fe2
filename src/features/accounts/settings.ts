// An account's settings as `accounts set` and `accounts show` print them: its own, and messaging's prices and
// opt-out settings for it.
import type { Executor } from '../../db/engine.js';
import { formatMoney } from '../../lib/money.js';
import { accountPricing, DEFAULT_PRICES, priceUnits } from '../../messaging/pricing.js';
import { optoutSettings } from '../../messaging/optouts.js';
import { dailySpendLimit } from '../../messaging/spend.js';
import { sendRulesView } from '../../messaging/send-rules.js';
import type { Channel, TrafficSetting } from '../../messaging/types.js';
import { trafficSettings } from '../../messaging/traffic.js';
import { toCredits } from '../../accounts/credits.js';
import { shownEmail } from '../../accounts/subaccount-email.js';
import { findAccountById, type Account } from '../../accounts/store.js';

/** What `accounts set` and `accounts show` print: the account, its settings, prices in force and opt-out settings. */
export interface AccountSettingsView {
  id: number;
  email: string;
  status: string;
  credits: number;
  webhook_method: string;
  allow_ips: string[] | null;
  panel_allow_ip: boolean;
  rate_limit_per_sec: number | null;
  max_subaccounts: number | null;
  parent_id: number | null;
  /** The low-balance threshold in credits, or null. */
  low_balance: number | null;
  /** The family's spending limit per Mexico City day in credits (set on the top-level account), or null. */
  daily_spend: number | null;
  prices: Record<Channel, number>;
  /** Money per credit in force for the account. */
  credit_value: string;
  optouts: { exempt_otp: boolean; confirmation: string | null };
  /** Long SMS and UCS-2 over HTTP, as in force: its own setting, else its parent's, else off. */
  long_sms: boolean;
  unicode: boolean;
  /** The abuse settings in force (own, else the parent's): destination countries, senders, destination caps. */
  countries: string[] | 'any';
  senders: 'registered' | 'any';
  max_per_number_hour: number | 'default';
  max_same_text_hour: number | 'default';
  /** The family's traffic settings (its top account's): pinned class, weight, default validity in minutes. */
  traffic_class: TrafficSetting;
  traffic_weight: number;
  validity_minutes: number | null;
}

/** The account's price per channel in credits, as sends are charged: its own, else its parent's, else the default. */
async function pricesOf(db: Executor, accountId: number): Promise<Record<Channel, number>> {
  const prices = { ...DEFAULT_PRICES };
  for (const channel of Object.keys(prices) as Channel[])
    prices[channel] = toCredits(await priceUnits(db, accountId, channel));
  return prices;
}

/** The account as the operator sees it; `defaultCreditValue` is CREDIT_VALUE (ten-thousandths). */
export async function accountSettings(
  db: Executor,
  a: Account,
  defaultCreditValue: number,
): Promise<AccountSettingsView> {
  const { exemptOtp, confirmation } = await optoutSettings(db, a.parent_id ?? a.id);
  return {
    id: Number(a.id),
    email: shownEmail(a.email),
    status: a.status,
    credits: toCredits(a.credits),
    webhook_method: a.webhook_method,
    allow_ips: a.allow_ips ? (JSON.parse(a.allow_ips) as string[]) : null,
    panel_allow_ip: a.panel_allow_ip === 1,
    rate_limit_per_sec: a.rate_limit_per_sec,
    max_subaccounts: a.max_subaccounts,
    parent_id: a.parent_id,
    low_balance: a.low_balance_units === null ? null : toCredits(Number(a.low_balance_units)),
    daily_spend: await dailySpendCredits(db, a.parent_id ?? a.id),
    prices: await pricesOf(db, a.id),
    credit_value: formatMoney((await accountPricing(db, a.id, 'sms')).creditValue ?? defaultCreditValue),
    optouts: { exempt_otp: exemptOtp, confirmation },
    ...(await smsTextSettings(db, a)),
    ...(await sendRulesView(db, { id: Number(a.id), parent_id: a.parent_id === null ? null : Number(a.parent_id) })),
    ...(await familyTraffic(db, a.parent_id ?? a.id)),
  };
}

async function familyTraffic(db: Executor, familyId: number) {
  const t = await trafficSettings(db, familyId);
  return { traffic_class: t.traffic_class, traffic_weight: t.weight, validity_minutes: t.validity_minutes };
}

async function dailySpendCredits(db: Executor, rootAccountId: number): Promise<number | null> {
  const units = await dailySpendLimit(db, rootAccountId);
  return units === null ? null : toCredits(units);
}

/** The long-SMS and Unicode settings in force for the account: its own, else its parent's, else off. */
export async function smsTextSettings(db: Executor, a: Account): Promise<{ long_sms: boolean; unicode: boolean }> {
  const parent = a.parent_id === null ? undefined : await findAccountById(db, a.parent_id);
  return {
    long_sms: (a.long_sms ?? parent?.long_sms ?? 0) === 1,
    unicode: (a.unicode_sms ?? parent?.unicode_sms ?? 0) === 1,
  };
}
