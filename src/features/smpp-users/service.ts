import type { WithDb } from '../../context.js';
import type { Db, Executor } from '../../db/engine.js';
import { isUniqueViolation } from '../../db/engine.js';
import { hashPassword } from '../../lib/passwords.js';
import { formatLocal } from '../../lib/time.js';
import type { TrafficSetting } from '../../messaging/types.js';
import { forgetThroughput } from './throughput.js';
import { DEFAULTS, SmppUserProblem, type SmppUserSettings } from './schemas.js';
import {
  deleteSmppUser,
  dropBind,
  dropBinds,
  findSmppUser,
  insertSmppUser,
  listSmppUsers,
  liveBinds,
  updateSmppUser,
  type SmppUserRow,
} from './store.js';

export type { SmppUserRow } from './store.js';
/** The SMPP server's binds, held by lease: renewed while the session lives, released when it closes. */
export { releaseBind, renewBind } from './store.js';
export {
  claimDeliveries,
  deleteDelivered,
  deliverLater,
  dropDeliveriesBefore,
  waitingByKind,
  type WaitingDelivery,
} from '../../messaging/customer-notices.js';

export interface SmppUserInput {
  systemId: string;
  password: string;
  maxBinds?: number;
  throughput?: number;
  window?: number;
  /** Stored JSON (schemas.allowIps) or null. */
  allowIps?: string | null;
  trafficClass?: TrafficSetting;
}

export type SmppUserChanges = Partial<Omit<SmppUserInput, 'systemId'>>;

export function settingsOf(row: SmppUserRow, email: string): SmppUserSettings {
  return {
    system_id: row.system_id,
    email,
    max_binds: row.max_binds,
    throughput: row.throughput,
    window: row.window_size,
    allow_ip: row.allow_ips ? (JSON.parse(row.allow_ips) as string[]) : [],
    traffic_class: row.traffic_class ?? 'auto',
  };
}

export async function addSmppUser(
  db: Db,
  account: { id: number; email: string },
  input: SmppUserInput,
): Promise<SmppUserSettings> {
  const now = Date.now();
  const row = {
    account_id: account.id,
    system_id: input.systemId,
    password_hash: await hashPassword(input.password),
    max_binds: input.maxBinds ?? DEFAULTS.maxBinds,
    throughput: input.throughput ?? DEFAULTS.throughput,
    window_size: input.window ?? DEFAULTS.window,
    allow_ips: input.allowIps ?? null,
    traffic_class: input.trafficClass ?? 'auto',
    created_at: now,
    updated_at: now,
  };
  try {
    await insertSmppUser(db.kysely, row);
  } catch (err) {
    if (isUniqueViolation(err)) throw new SmppUserProblem(`the system id ${input.systemId} is taken`);
    throw err;
  }
  return settingsOf({ ...row, id: 0 }, account.email);
}

/** Whether an SMPP user has this system id. */
export const hasSmppUser = async (db: Db, systemId: string): Promise<boolean> =>
  (await findSmppUser(db.kysely, systemId)) !== undefined;

async function requireUser(db: Executor, systemId: string): Promise<SmppUserRow> {
  const user = await findSmppUser(db, systemId);
  if (!user) throw new SmppUserProblem(`no SMPP user ${systemId}`);
  return user;
}

async function emailOf(db: Executor, accountId: number): Promise<string> {
  const row = await db.selectFrom('accounts').select('email').where('id', '=', accountId).executeTakeFirstOrThrow();
  return row.email;
}

/** Changes settings; a new password takes effect at the next bind (open binds stay). */
export async function setSmppUser(db: Db, systemId: string, changes: SmppUserChanges): Promise<SmppUserSettings> {
  const user = await requireUser(db.kysely, systemId);
  const updated = await updateSmppUser(db.kysely, user.id, {
    ...(changes.password !== undefined ? { password_hash: await hashPassword(changes.password) } : {}),
    ...(changes.maxBinds !== undefined ? { max_binds: changes.maxBinds } : {}),
    ...(changes.throughput !== undefined ? { throughput: changes.throughput } : {}),
    ...(changes.window !== undefined ? { window_size: changes.window } : {}),
    ...(changes.allowIps !== undefined ? { allow_ips: changes.allowIps } : {}),
    ...(changes.trafficClass !== undefined ? { traffic_class: changes.trafficClass } : {}),
  });
  if (!updated) throw new SmppUserProblem(`no SMPP user ${systemId}`);
  return settingsOf(updated, await emailOf(db.kysely, updated.account_id));
}

/** A new password for one of the account's own users (the panel); false when the account has no such user. */
export async function setOwnSmppPassword(ctx: WithDb, accountId: number, systemId: string, password: string) {
  const { db } = ctx;
  const user = await findSmppUser(db.kysely, systemId);
  if (!user || user.account_id !== accountId) return false;
  await updateSmppUser(db.kysely, user.id, { password_hash: await hashPassword(password) });
  return true;
}

/** Removes the user and its throughput counters; its open binds (in any process) close at their holder's next renewal. */
export async function removeSmppUser(db: Db, systemId: string): Promise<boolean> {
  const user = await requireUser(db.kysely, systemId);
  return db.kysely.transaction().execute(async (trx) => {
    await forgetThroughput(trx, user.id);
    return deleteSmppUser(trx, user.id);
  });
}

export async function smppUserSettings(db: Db, accountId?: number): Promise<SmppUserSettings[]> {
  return (await listSmppUsers(db.kysely, accountId)).map((row) => settingsOf(row, row.email));
}

/** An account's own SMPP users with how many binds each has open now (the panel's Integrations page). */
export async function ownSmppUsers(
  { db }: WithDb,
  accountId: number,
): Promise<Array<SmppUserSettings & { binds: number }>> {
  const [users, binds] = await Promise.all([smppUserSettings(db, accountId), liveBinds(db.kysely, { accountId })]);
  return users.map((u) => ({ ...u, binds: binds.filter((b) => b.system_id === u.system_id).length }));
}

export interface BindView {
  system_id: string;
  bind: string;
  address: string;
  since: string;
  submitted: number;
  delivered: number;
}

/** Live binds across every process (each renews its own every second). */
export async function bindViews(db: Db, systemId?: string, accountId?: number): Promise<BindView[]> {
  return (await bindRows(db, systemId, accountId)).map(({ system_id, bind, address, since, submitted, delivered }) => ({
    system_id,
    bind,
    address,
    since,
    submitted,
    delivered,
  }));
}

/** A live bind as the operator view shows it: whose it is, which process holds it, and what names it for closing. */
export interface BindRow extends BindView {
  email: string;
  process: string;
  slot: number;
  since_ms: number;
}

export async function bindRows(db: Db, systemId?: string, accountId?: number): Promise<BindRow[]> {
  const user = systemId === undefined ? undefined : await requireUser(db.kysely, systemId);
  const rows = await liveBinds(db.kysely, { userId: user?.id, accountId });
  return rows.map((r) => ({
    system_id: r.system_id,
    email: r.email,
    bind: r.mode,
    address: r.address,
    process: r.holder,
    slot: Number(r.slot),
    since: formatLocal(Number(r.since)),
    since_ms: Number(r.since),
    submitted: Number(r.submitted),
    delivered: Number(r.delivered),
  }));
}

/** Every live bind, as the operator view lists them. */
export const allBinds = (ctx: WithDb) => bindRows(ctx.db);

/** Closes one bind, whichever process holds it (at its next renewal, within a second); false when it is gone already. */
export async function closeBind({ db }: WithDb, systemId: string, slot: number, sinceMs: number): Promise<boolean> {
  const user = await findSmppUser(db.kysely, systemId);
  return user ? dropBind(db.kysely, user.id, slot, sinceMs) : false;
}

/** Closes every bind of the user, whichever process holds it; returns how many were open. */
export async function kickSmppUser(db: Db, systemId: string): Promise<number> {
  const user = await requireUser(db.kysely, systemId);
  return dropBinds(db.kysely, user.id);
}
