import { toCredits, toUnits } from '../accounts/credits.js';
import { shownEmail } from '../accounts/subaccount-email.js';
import { recordAudit } from '../audit/service.js';
import { listPublicRoutes } from '../carriers/index.js';
import { carrierStatus } from '../carriers/status.js';
import type { AppContext } from '../context.js';
import type { Db } from '../db/engine.js';
import { ApiError, badRequest } from '../http/errors.js';
import { marginReport, MarginError, type MarginBy } from '../features/reports/margins.js';
import { smppUserSettings } from '../features/smpp-users/service.js';
import { DEPLOYMENT, listPrefixPrices, removePrefixPrice, setPrefixPrice } from '../messaging/prices.js';
import type { Channel } from '../messaging/types.js';
import type { ApiActor } from './schemas.js';
import { emailsById } from './store.js';

/** Every prefix price (as `prices list`): the deployment's (account_id null) and each account's. */
export async function pricesView(db: Db) {
  const prices = await listPrefixPrices(db.kysely);
  const emails = await emailsById(db.kysely, [
    ...new Set(prices.map((p) => p.accountId).filter((id) => id !== DEPLOYMENT)),
  ]);
  return {
    prices: prices.map((p) => ({
      channel: p.channel,
      prefix: p.prefix,
      credits: toCredits(p.units),
      account_id: p.accountId === DEPLOYMENT ? null : p.accountId,
      account: p.accountId === DEPLOYMENT ? null : shownEmail(emails.get(p.accountId) ?? '') || null,
    })),
  };
}

type PriceKey = { channel: Channel; prefix: string; account_id?: number | null };

async function scopeOf(db: Db, accountId: number | null | undefined): Promise<number> {
  if (accountId == null) return DEPLOYMENT;
  if ((await emailsById(db.kysely, [accountId])).size === 0) throw new ApiError(404, 'op_account_missing');
  return accountId;
}

/** Sets a prefix price (as `prices set`), recorded with it. */
export async function setPriceAs(db: Db, by: ApiActor, p: PriceKey & { credits: number }) {
  const accountId = await scopeOf(db, p.account_id);
  await db.kysely.transaction().execute(async (trx) => {
    await setPrefixPrice(trx, { accountId, channel: p.channel, prefix: p.prefix, units: toUnits(p.credits) });
    const detail = { channel: p.channel, prefix: p.prefix, credits: p.credits, account_id: p.account_id ?? null };
    await recordAudit(trx, { ...by, action: 'prices.set', target: `${p.channel}:${p.prefix}`, detail });
  });
  return { channel: p.channel, prefix: p.prefix, credits: p.credits, account_id: p.account_id ?? null };
}

/** Removes a prefix price (as `prices remove`); recorded when there was one. */
export async function removePriceAs(db: Db, by: ApiActor, p: PriceKey) {
  const accountId = await scopeOf(db, p.account_id);
  const removed = await db.kysely.transaction().execute(async (trx) => {
    const gone = await removePrefixPrice(trx, { accountId, channel: p.channel, prefix: p.prefix });
    const detail = { channel: p.channel, prefix: p.prefix, account_id: p.account_id ?? null };
    if (gone) await recordAudit(trx, { ...by, action: 'prices.remove', target: `${p.channel}:${p.prefix}`, detail });
    return gone;
  });
  return { removed };
}

/** The connectors and their live state across processes (as `carriers status`). */
export async function carriersView(ctx: Pick<AppContext, 'db'>) {
  const carriers = await carrierStatus(ctx);
  return {
    carriers: carriers.map((c) => ({
      ...c,
      last_error_at: c.last_error_at === null ? null : new Date(c.last_error_at).toISOString(),
    })),
  };
}

export const routesView = async (db: Db) => ({ routes: await listPublicRoutes(db.kysely) });

export const smppUsersView = async (db: Db) => ({ smpp_users: await smppUserSettings(db) });

/** The margins report (as `reports margins`) of a period, every account. */
export async function marginsView(ctx: AppContext, q: { from: string; to: string; by: MarginBy }) {
  try {
    return await marginReport(ctx, q);
  } catch (err) {
    if (err instanceof MarginError) throw badRequest('op_margins_invalid');
    throw err;
  }
}
