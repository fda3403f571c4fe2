import type { Db } from '../../db/engine.js';
import type { Channel } from '../../messaging/types.js';
import { setPrice } from '../../messaging/pricing.js';
import { setDailySpendLimit } from '../../messaging/spend.js';
import { saveSendRules, type SendRulesChanges } from '../../messaging/send-rules.js';
import { setTrafficSettings, type TrafficSettings } from '../../messaging/traffic.js';
import {
  adjustCreditsByOperator,
  archiveAccount,
  rotateKey,
  unarchiveAccount,
  updateAccountSettings,
  type AccountSettingChanges,
} from '../../accounts/store.js';

// The changes the `accounts` commands make, each in one transaction. Front ends import this file (accounts/cli.ts);
// it reaches above the accounts' foundation (prices, opt-outs, webhooks) as they do, the last two loaded on demand.

/**
 * Adds (negative: withdraws) credits, with its ledger entry (the actor and reason given); false, changing nothing, when the balance would go below zero or (an addition)
 * past MAX_BALANCE_CREDITS.
 */
export async function addCredits(
  db: Db,
  accountId: number,
  units: number,
  by: { actor: string; reason?: string | null },
): Promise<boolean> {
  return db.kysely.transaction().execute(async (trx) => {
    if (!(await adjustCreditsByOperator(trx, accountId, units, by))) return false;
    // Loaded here: the webhook modules are for this change only, not every `accounts` command.
    if (units < 0) await (await import('../../webhooks/index.js')).recordLowBalance(trx, accountId);
    return true;
  });
}

/** What `accounts set` changes of the account's family (top-level accounts only); undefined leaves each as it is. */
export interface FamilyChanges {
  optout?: { exemptOtp?: boolean; confirmation?: string | null } | null;
  /** The family's daily spending limit in units, null to remove it. */
  dailySpend?: number | null;
  /** Countries, senders and destination caps (messaging/send-rules.ts). */
  rules?: SendRulesChanges;
  /** Its traffic class, weight and default validity (messaging/traffic.ts). */
  traffic?: Partial<TrafficSettings> | null;
}

/** `accounts set`: settings, prices by channel (in units) and opt-out, spending, abuse and traffic settings, together. */
export async function changeSettings(
  db: Db,
  accountId: number,
  changes: AccountSettingChanges,
  prices: Array<[Channel, number]>,
  family: FamilyChanges = {},
): Promise<void> {
  const { optout, dailySpend } = family;
  // The opt-out feature (its request schemas) is loaded only when a change needs it.
  const setOptoutSettings = optout ? (await import('../optouts/service.js')).setOptoutSettings : undefined;
  await db.kysely.transaction().execute(async (trx) => {
    await updateAccountSettings(trx, accountId, changes);
    for (const [channel, units] of prices) await setPrice(trx, accountId, channel, units);
    if (optout && setOptoutSettings) await setOptoutSettings(trx, accountId, optout);
    if (dailySpend !== undefined) await setDailySpendLimit(trx, accountId, dailySpend);
    if (family.rules) await saveSendRules(trx, accountId, family.rules);
    if (family.traffic) await setTrafficSettings(trx, accountId, family.traffic);
  });
}

/** Suspends the account and its sub-accounts; how many sub-accounts went with it. */
export const archiveFamily = (db: Db, accountId: number) =>
  db.kysely.transaction().execute((trx) => archiveAccount(trx, accountId));

/** Revives one archived account with a new API key; undefined while its parent is archived. */
export const reviveAccount = (db: Db, keyEncryption: Buffer, accountId: number) =>
  db.kysely.transaction().execute((trx) => unarchiveAccount(trx, keyEncryption, accountId));

/** Replaces the account's API key; the new key is returned once. */
export const replaceKey = (db: Db, keyEncryption: Buffer, accountId: number) =>
  db.kysely.transaction().execute((trx) => rotateKey(trx, keyEncryption, accountId));
