import type { Executor } from '../db/engine.js';
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../db/schema.js';
import type { CarriersTable, CarrierRoutesTable } from './tables.js';
import { shownEmail } from '../accounts/subaccount-email.js';

export type CarrierRow = Selectable<CarriersTable>;
export type RouteRow = Selectable<CarrierRoutesTable>;

/** The simulator connector's name (docs/operators/carriers-and-routes.md). */
export const SIMULATOR = 'simulator';

export const listCarriers = (db: Executor) => db.selectFrom('carriers').selectAll().orderBy('name').execute();

export const findCarrier = (db: Executor, name: string) =>
  db.selectFrom('carriers').selectAll().where('name', '=', name).executeTakeFirst();

/** A chat-app instance bound to its own Cloud API number (whatsapp-cloud/instances.ts). */
export type BoundInstance = Selectable<Database['chatapp_instances']>;

/** Every bound instance, for the carrier manager. */
export const listBoundInstances = (db: Executor): Promise<BoundInstance[]> =>
  db.selectFrom('chatapp_instances').selectAll().where('cloud_settings', 'is not', null).orderBy('id').execute();
export const listCosts = (db: Executor) =>
  db.selectFrom('carrier_costs').select(['carrier', 'prefix', 'cost']).execute();

export const listRoutes = (db: Executor) =>
  db.selectFrom('carrier_routes').selectAll().orderBy('channel').orderBy('prefix').orderBy('account_id').execute();

/** What the CLI shows of a connector: its settings, never its password. */
export function publicCarrier(row: CarrierRow): Record<string, unknown> {
  return {
    name: row.name,
    type: row.type,
    enabled: row.enabled === 1,
    ...(JSON.parse(row.settings) as Record<string, unknown>),
  };
}

export interface PublicRoute {
  id: number;
  channel: string;
  prefix: string;
  carriers: string[];
  account: string | null;
  strategy: string;
  /** Only for `weighted`. */
  weights?: number[];
}

export function publicRoute(row: RouteRow, accountEmail: string | null): PublicRoute {
  return {
    id: Number(row.id),
    channel: row.channel,
    prefix: row.prefix,
    carriers: JSON.parse(row.carriers) as string[],
    account: accountEmail,
    strategy: row.strategy,
    ...(row.weights ? { weights: JSON.parse(row.weights) as number[] } : {}),
  };
}

/** Every route as `routes list` shows it, with the account a route is limited to by its plain email. */
export async function listPublicRoutes(db: Executor): Promise<PublicRoute[]> {
  const rows = await listRoutes(db);
  const ids = [...new Set(rows.map((r) => r.account_id).filter((id) => id !== 0))];
  const emails = new Map(
    (ids.length ? await db.selectFrom('accounts').select(['id', 'email']).where('id', 'in', ids).execute() : []).map(
      (a) => [a.id, shownEmail(a.email)],
    ),
  );
  return rows.map((r) =>
    publicRoute(r, r.account_id === 0 ? null : (emails.get(r.account_id) ?? String(r.account_id))),
  );
}

export interface NewCarrier {
  name: string;
  type: CarrierRow['type'];
  settings: object;
  passwordEnc: string | null;
}

export async function insertCarrier(db: Executor, c: NewCarrier): Promise<void> {
  const now = Date.now();
  const settings = JSON.stringify(c.settings);
  const row = { name: c.name, type: c.type, enabled: 1, settings, password_enc: c.passwordEnc, version: 1 };
  await db
    .insertInto('carriers')
    .values({ ...row, created_at: now, updated_at: now })
    .execute();
}

/** New settings (and secret, unless undefined: the stored one stays); the version moves, so processes rebuild it. */
export async function updateCarrierSettings(
  db: Executor,
  id: number,
  settings: object,
  passwordEnc?: string,
): Promise<void> {
  const secret = passwordEnc === undefined ? {} : { password_enc: passwordEnc };
  const changes = { settings: JSON.stringify(settings), ...secret, updated_at: Date.now() };
  await db
    .updateTable('carriers')
    .set((eb) => ({ ...changes, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

export async function setCarrierEnabled(db: Executor, id: number, enabled: 0 | 1): Promise<void> {
  await db
    .updateTable('carriers')
    .set((eb) => ({ enabled, version: eb('version', '+', 1), updated_at: Date.now() }))
    .where('id', '=', id)
    .execute();
}

export async function deleteCarrier(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('carriers').where('id', '=', id).execute();
}

export interface RouteKey {
  channel: string;
  prefix: string;
  accountId: number;
}

/** One route per channel, prefix and account: adding it again replaces its connectors and strategy. */
export async function replaceRoute(
  db: Kysely<Database>,
  r: RouteKey & { carriers: string[]; strategy?: string; weights?: number[] | null },
): Promise<number> {
  const row = {
    channel: r.channel,
    prefix: r.prefix,
    account_id: r.accountId,
    carriers: JSON.stringify(r.carriers),
    strategy: r.strategy ?? 'priority',
    weights: r.weights ? JSON.stringify(r.weights) : null,
  };
  return db.transaction().execute(async (trx) => {
    await deleteRoute(trx, r);
    const inserted = await trx
      .insertInto('carrier_routes')
      .values({ ...row, created_at: Date.now() })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(inserted.id);
  });
}

/** Removes one route by its id; whether there was one. */
export async function deleteRouteById(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('carrier_routes').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deleteRoute(db: Executor, r: RouteKey): Promise<boolean> {
  const result = await db
    .deleteFrom('carrier_routes')
    .where('channel', '=', r.channel)
    .where('prefix', '=', r.prefix)
    .where('account_id', '=', r.accountId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export const listRejections = (db: Executor, limit: number) =>
  db
    .selectFrom('provider_rejections')
    .selectAll()
    .orderBy('last_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();

export const listUnmatchedReplies = (db: Executor, limit: number) =>
  db.selectFrom('unmatched_replies').selectAll().orderBy('id', 'desc').limit(limit).execute();

/**
 * Housekeeping: unmatched replies older than `keepDays`, and all but the
 * newest `keepRows` (a carrier's flood of deliver_sm to an address nobody
 * owns or routes leaves at most that many rows between two runs' worth).
 */
export async function pruneUnmatchedReplies(
  db: Executor,
  now: number,
  keep: { keepDays: number; keepRows: number },
): Promise<number> {
  const old = await db
    .deleteFrom('unmatched_replies')
    .where('received_at', '<', now - keep.keepDays * 86_400_000)
    .executeTakeFirst();
  // The oldest row kept by the cap, found through the primary key: everything older goes.
  const edge = await db
    .selectFrom('unmatched_replies')
    .select('id')
    .orderBy('id', 'desc')
    .limit(1)
    .offset(keep.keepRows - 1)
    .executeTakeFirst();
  const over = edge
    ? await db.deleteFrom('unmatched_replies').where('id', '<', edge.id).executeTakeFirst()
    : { numDeletedRows: 0n };
  return Number(old.numDeletedRows) + Number(over.numDeletedRows);
}
