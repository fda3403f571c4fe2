import { replaceKey } from '../features/accounts/admin.js';
import { accountSettings } from '../features/accounts/settings.js';
import { emailsByIds, findAccountById, ledgerPage } from '../accounts/index.js';
import { listCarriers, publicCarrier } from '../carriers/index.js';
import { qualityByCarrier } from '../carriers/quality-settings.js';
import type { AppContext, WithDb } from '../context.js';
import { listPrefixPrices, type PrefixPrice } from '../features/prices/service.js';
import { removePriceAs, setPriceAs } from '../operator-api/catalog.js';
import type { ApiActor } from '../operator-api/schemas.js';

// What the operator's account page and operations page read and change beside the services they call with the
// context: those modules take the database handle, and pages hold only the context (as deployment.ts).

export const accountById = (ctx: WithDb, id: number) => findAccountById(ctx.db.kysely, id);

/** The account's settings as `accounts show` prints them. */
export const settingsOf = (ctx: Pick<AppContext, 'db' | 'config'>, account: Parameters<typeof accountSettings>[1]) =>
  accountSettings(ctx.db.kysely, account, ctx.config.CREDIT_VALUE);

/** One page of the account's credit ledger, newest first (`accounts ledger --page`): 1 is the newest. */
export const ledgerOf = (ctx: WithDb, id: number, page: number) => ledgerPage(ctx.db.kysely, id, { page });

/** Prefix prices (`prices list`): every one, or one account's own. */
export const prefixPrices = (ctx: WithDb, accountId?: number): Promise<PrefixPrice[]> =>
  listPrefixPrices(ctx.db.kysely, accountId);

export const accountEmails = (ctx: WithDb, ids: readonly number[]) => emailsByIds(ctx.db.kysely, ids);

/** `prices set` and `prices remove` as the operator API makes them (recorded with `by`). */
export const setPrice = (ctx: WithDb, by: ApiActor, p: Parameters<typeof setPriceAs>[2]) => setPriceAs(ctx.db, by, p);
export const removePrice = (ctx: WithDb, by: ApiActor, p: Parameters<typeof removePriceAs>[2]) =>
  removePriceAs(ctx.db, by, p);

/** `accounts rotate-key`: the new key, returned once. */
export const rotateKey = (ctx: Pick<AppContext, 'db' | 'secrets'>, id: number) =>
  replaceKey(ctx.db, ctx.secrets.keyEncryption, id);

/** Every connector's stored settings (never a secret) and quality settings, by name. */
export async function connectors(ctx: WithDb) {
  const [rows, quality] = await Promise.all([listCarriers(ctx.db.kysely), qualityByCarrier(ctx.db.kysely)]);
  return rows.map((row) => ({
    name: row.name,
    type: row.type,
    stored: publicCarrier(row),
    quality: quality(row.name),
  }));
}
