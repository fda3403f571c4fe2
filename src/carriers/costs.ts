import type { Db, Executor } from '../db/engine.js';
import { bumpRevision, RevisionedCache } from '../db/revisioned.js';
import { PrefixTable } from '../lib/prefix-table.js';

/**
 * What each connector charges per message part by destination prefix, in
 * ten-thousandths of COST_CURRENCY (`carriers costs set`). The router reads
 * them from the manager's copy (reloaded with the routes when they changed)
 * and names the cost in force with each message a connector takes.
 */
export interface CarrierCost {
  carrier: string;
  prefix: string;
  cost: number;
}

/** Costs are integers in ten-thousandths of COST_CURRENCY: 100 is 0.0100. */
export const COST_SCALE = 10_000;

/** A cost as the CLI and the message's routing reason show it: 4 decimals. */
export function formatCost(tenThousandths: number): string {
  const whole = Math.floor(tenThousandths / COST_SCALE);
  return `${whole}.${String(tenThousandths % COST_SCALE).padStart(4, '0')}`;
}

/** The carrier costs by connector name: `match(carrier, number)` with its prefix, or just `costFor`. */
export class CostTable extends PrefixTable<number> {
  constructor(rows: Iterable<{ carrier: string; prefix: string; cost: number | string }> = []) {
    super();
    for (const r of rows) this.set(r.carrier, r.prefix, Number(r.cost));
  }

  /** The cost of one part to `number` through `carrier` (longest cost prefix), or null when it has none for it. */
  costFor(carrier: string, number: string): number | null {
    return this.match(carrier, number)?.value ?? null;
  }
}

async function loadCosts(db: Executor): Promise<CostTable> {
  return new CostTable(await db.selectFrom('carrier_costs').select(['carrier', 'prefix', 'cost']).execute());
}

/** The process's copy of the costs: the revision is read at every call (once per carrier round), the rows only after a change. */
export const costCache = () => new RevisionedCache('costs', 0, loadCosts);

export async function setCarrierCost(db: Executor, c: CarrierCost): Promise<void> {
  await db
    .insertInto('carrier_costs')
    .values(c)
    .onConflict((oc) => oc.columns(['carrier', 'prefix']).doUpdateSet({ cost: c.cost }))
    .execute();
  await bumpRevision(db, 'costs');
}

export async function removeCarrierCost(db: Executor, carrier: string, prefix: string): Promise<boolean> {
  const gone = await db
    .deleteFrom('carrier_costs')
    .where('carrier', '=', carrier)
    .where('prefix', '=', prefix)
    .executeTakeFirst();
  if (Number(gone.numDeletedRows) === 0) return false;
  await bumpRevision(db, 'costs');
  return true;
}

/** `carriers costs set`: the cost with its revision bump, in one transaction (each process reloads its table). */
export const saveCarrierCost = (db: Db, c: CarrierCost) =>
  db.kysely.transaction().execute((trx) => setCarrierCost(trx, c));

/** `carriers costs remove`: whether there was such a cost; its removal and revision bump in one transaction. */
export const dropCarrierCost = (db: Db, carrier: string, prefix: string) =>
  db.kysely.transaction().execute((trx) => removeCarrierCost(trx, carrier, prefix));

export async function listCarrierCosts(db: Executor, carrier?: string): Promise<CarrierCost[]> {
  let query = db.selectFrom('carrier_costs').select(['carrier', 'prefix', 'cost']).orderBy('carrier').orderBy('prefix');
  if (carrier !== undefined) query = query.where('carrier', '=', carrier);
  return (await query.execute()).map((r) => ({ carrier: r.carrier, prefix: r.prefix, cost: Number(r.cost) }));
}
