import type { Executor } from '../db/engine.js';
import type { Selectable } from 'kysely';
import type { CarriersTable, CarrierRoutesTable } from './tables.js';
import { shownEmail } from '../accounts/subaccount-email.js';

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

/** Every route as `routes list` shows it, with the account a route is limited to by its plain email. */
export async function listPublicRoutes(db: Executor): Promise<Array<ReturnType<typeof publicRoute>>> {
  const rows = await listRoutes(db);
  const ids = [...new Set(rows.map((r) => r.account_id).filter((id) => id !== 0))];
  const emails = new Map((ids.length ? await db.selectFrom('accounts').select(['id', 'email']).where('id', 'in', ids).execute() : []).map((a) => [a.id, shownEmail(a.email)]));
  return rows.map((r) => publicRoute(r, r.account_id === 0 ? null : (emails.get(r.account_id) ?? String(r.account_id))));
}
