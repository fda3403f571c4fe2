import { selectCaller } from '../../accounts/store.js';
import { allowListAdmits } from '../../auth/allow-list.js';
import { finishAttempt, reserveAttempt } from '../../auth/attempts.js';
import type { Db } from '../../db/engine.js';
import { CallerBusy } from '../../lib/fair-queue.js';
import { verifyPassword } from '../../lib/passwords.js';
import { Status } from '../../smpp-protocol/status.js';
import { acquireBindSlot, findSmppUser, liveBindCount, type NewBind, type SmppUserRow } from './store.js';

/** command_status of a refused bind (docs/operators/smpp-server.md). */
export const BindStatus = { BINDFAIL: Status.BINDFAIL, INVPASWD: Status.INVPASWD, INVSYSID: Status.INVSYSID } as const;

/** Failed binds counted per address and per system id within this window; over the limit, binds are refused unchecked. */
export const BIND_FAILURE_WINDOW_MS = 5 * 60_000;
export const BIND_FAILURES_PER_ADDRESS = 20;
export const BIND_FAILURES_PER_SYSTEM_ID = 10;
/** Every bind attempt of one system id from one address counts, whatever its outcome; past this many a minute, refused unchecked. */
export const BIND_ATTEMPTS_PER_ADDRESS_AND_ID = 30;
export const BIND_ATTEMPT_WINDOW_MS = 60_000;

/** Compared against when the system id is unknown, so a wrong id costs what a wrong password costs. */
const DUMMY_HASH = 'scrypt$16384$8$1$ZtVbF6bxzaOCUT7Ej+sUwQ==$VXCVqkdZfjN2Y1KYSbDvA+4Nf3carayBvco2eIjIxGc=';

export interface BindRequest {
  systemId: string;
  password: string;
  address: string;
  mode: NewBind['mode'];
  holder: string;
}

/** A refusal names the system id only when it is an SMPP user's (null otherwise): metrics label nothing else. */
export type BindOutcome = { status: number; systemId: string | null } | { status: 0; user: SmppUserRow; slot: number };

/** The user of a system id, and its account when it and its parent are active. */
interface Binder {
  user?: SmppUserRow;
  account?: Awaited<ReturnType<typeof activeAccount>>;
}

/**
 * A bind. Every attempt of a system id from an address counts (30 a
 * minute); failures are throttled per address and per system id (reserved
 * before the password is checked, so parallel guesses count). Before any
 * hashing: the allow-list (the user's, else the account's), answered as a
 * wrong password and not counted against the system id (guesses from
 * elsewhere neither learn the password nor lock the customer out), and a
 * free slot of max_binds. Then the password in constant time (the hashing
 * queue takes addresses in turn), the account (active, parent active), and
 * the slot, taken atomically.
 */
export async function checkBind(db: Db, req: BindRequest): Promise<BindOutcome> {
  const found = await findBinder(db, req.systemId);
  const refuse = (status: number): BindOutcome => ({ status, systemId: found.user?.system_id ?? null });
  const kysely = db.kysely;
  const systemId = req.systemId.slice(0, 16);
  const attempt = await reserveAttempt(kysely, {
    key: `smpp-bind:${req.address} ${systemId}`,
    limit: BIND_ATTEMPTS_PER_ADDRESS_AND_ID,
    windowMs: BIND_ATTEMPT_WINDOW_MS,
  });
  if (!attempt) return refuse(BindStatus.BINDFAIL);
  await finishAttempt(kysely, attempt, 'failed');
  const perAddress = await reserveAttempt(kysely, {
    key: `smpp-ip:${req.address}`,
    limit: BIND_FAILURES_PER_ADDRESS,
    windowMs: BIND_FAILURE_WINDOW_MS,
  });
  if (!perAddress) return refuse(BindStatus.BINDFAIL);
  const { user, account } = found;
  if (user && account && !allowListAdmits(user.allow_ips ?? account.allow_ips, req.address)) {
    await finishAttempt(kysely, perAddress, 'failed');
    return refuse(BindStatus.INVPASWD);
  }
  const perId = await reserveAttempt(kysely, {
    key: `smpp-id:${systemId}`,
    limit: BIND_FAILURES_PER_SYSTEM_ID,
    windowMs: BIND_FAILURE_WINDOW_MS,
  });
  const reserved = perId ? [perAddress, perId] : [perAddress];
  const finish = async (outcome: 'failed' | 'released') => {
    for (const r of reserved) await finishAttempt(kysely, r, outcome);
  };
  if (!perId || (user && account && (await liveBindCount(kysely, user.id)) >= user.max_binds)) {
    await finish('released');
    return refuse(BindStatus.BINDFAIL);
  }
  let outcome: BindOutcome;
  try {
    outcome = await authenticate(db, req, found);
  } catch (err) {
    await finish('released');
    if (err instanceof CallerBusy) return refuse(BindStatus.BINDFAIL);
    throw err;
  }
  const failed = outcome.status === BindStatus.INVPASWD || outcome.status === BindStatus.INVSYSID;
  await finish(failed ? 'failed' : 'released');
  return outcome;
}

async function findBinder(db: Db, systemId: string): Promise<Binder> {
  const user = await findSmppUser(db.kysely, systemId);
  return user ? { user, account: await activeAccount(db, Number(user.account_id)) } : {};
}

/** The password (against a dummy hash when the system id is unknown), then a slot of max_binds. */
async function authenticate(db: Db, req: BindRequest, { user, account }: Binder): Promise<BindOutcome> {
  const passwordOk = await verifyPassword(req.password, user?.password_hash ?? DUMMY_HASH, req.address);
  if (!user) return { status: BindStatus.INVSYSID, systemId: null };
  const refused = (status: number) => ({ status, systemId: user.system_id });
  if (!passwordOk) return refused(BindStatus.INVPASWD);
  if (!account) return refused(BindStatus.BINDFAIL);
  const slot = await acquireBindSlot(
    db.kysely,
    { smpp_user_id: user.id, holder: req.holder, account_id: user.account_id, mode: req.mode, address: req.address },
    user.max_binds,
  );
  return slot === null ? refused(BindStatus.BINDFAIL) : { status: 0, user, slot };
}

/** The account when it and its parent are active (with its effective allow-list), else undefined. */
export function activeAccount(db: Db, accountId: number) {
  return selectCaller(db.kysely).where('accounts.id', '=', accountId).executeTakeFirst();
}
