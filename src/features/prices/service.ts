import type { Db } from '../../db/engine.js';
import { removePrefixPrice, setPrefixPrice, type PrefixPrice } from '../../messaging/prices.js';

// Prices by destination prefix as the operator sets them (`mensajero prices`); the table is messaging's.

export { DEPLOYMENT, listPrefixPrices, type PrefixPrice } from '../../messaging/prices.js';

/** `prices set`: the price with its revision bump, in one transaction (each process reloads its table). */
export const savePrefixPrice = (db: Db, p: PrefixPrice) =>
  db.kysely.transaction().execute((trx) => setPrefixPrice(trx, p));

/** `prices remove`: whether there was such a price; its removal and revision bump in one transaction. */
export const dropPrefixPrice = (db: Db, key: Omit<PrefixPrice, 'units'>) =>
  db.kysely.transaction().execute((trx) => removePrefixPrice(trx, key));
