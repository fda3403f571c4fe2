import type { Executor } from '../db/engine.js';
import type { Selectable } from 'kysely';
import type { CarriersTable, CarrierRoutesTable } from './tables.js';

export type CarrierRow = Selectable<CarriersTable>;
export type RouteRow = Selectable<CarrierRoutesTable>;

/** The simulator connector's name (CONTRACT.md). */
export const SIMULATOR = 'simulator';

export const listCarriers = (db: Executor) => db.selectFrom('carriers').selectAll().orderBy('name').execute();

export const findCarrier = (db: Executor, name: string) => db.selectFrom('carriers').selectAll().where('name', '=', name).executeTakeFirst();

export const listRoutes = (db: Executor) => db.selectFrom('carrier_routes').selectAll().orderBy('channel').orderBy('prefix').orderBy('account_id').execute();

/** What the CLI shows of a connector: its settings, never its password. */
export function publicCarrier(row: CarrierRow): Record<string, unknown> {
  return { name: row.name, type: row.type, enabled: row.enabled === 1, ...(JSON.parse(row.settings) as Record<string, unknown>) };
}

export function publicRoute(row: RouteRow, accountEmail: string | null): { channel: string; prefix: string; carriers: string[]; account: string | null } {
  return { channel: row.channel, prefix: row.prefix, carriers: JSON.parse(row.carriers) as string[], account: accountEmail };
}
