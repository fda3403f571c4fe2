import type { WithDb } from '../../context.js';
import { countLandlines, importLandlines, type LandlineRow } from './store.js';

export type { LandlineRow } from './store.js';

/** `landlines import`: the rows in one transaction (over the table with `replace`); how many, and the table's total. */
export async function importLandlineRows(ctx: WithDb, rows: LandlineRow[], replace: boolean) {
  await ctx.db.kysely.transaction().execute((trx) => importLandlines(trx, rows, replace));
  return { imported: rows.length, total: await countLandlines(ctx.db.kysely) };
}
