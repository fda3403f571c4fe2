import { selectCaller } from '../../accounts/store.js';
import { allowListAdmits } from '../../auth/allow-list.js';
import { finishAttempt, reserveAttempt } from '../../auth/attempts.js';
import type { Db } from '../../db/engine.js';
import { verifyPassword } from '../../lib/passwords.js';
import { acquireBindSlot, findSmppUser, type NewBind, type SmppUserRow } from './store.js';

/** command_status of a refused bind (CONTRACT, "SMPP server"). */
export const BindStatus = { BINDFAIL: 0x0d, INVPASWD: 0x0e, INVSYSID: 0x0f } as const;

/** Failed binds counted per address and per system id within this window; over the limit, binds are refused unchecked. */
export const BIND_FAILURE_WINDOW_MS = 5 * 60_000;
export const BIND_FAILURES_PER_ADDRESS = 20;
export const BIND_FAILURES_PER_SYSTEM_ID = 10;

/** Compared against when the system id is unknown, so a wrong id costs what a wrong password costs. */
const DUMMY_HASH = 'scrypt$16384$8$1$ZtVbF6bxzaOCUT7Ej+sUwQ==$VXCVqkdZfjN2Y1KYSbDvA+4Nf3carayBvco2eIjIxGc=';

export interface BindRequest {
  systemId: string;
  password: string;
  address: string;
  mode: NewBind['mode'];
  holder: string;
}

export type BindOutcome = { status: number } | { status: 0; user: SmppUserRow; slot: number };

/**
 * A bind: throttled per address and per system id (reserved before the
 * password is checked, so parallel guesses count), then the password in
 * constant time, the account (active, parent active), the allow-list (the
 * user's, else the account's) and a free slot of max_binds.
 */
export async function checkBind(db: Db, req: BindRequest): Promise<BindOutcome> {
  const keys = [
    { key: `smpp-ip:${req.address}`, limit: BIND_FAILURES_PER_ADDRESS, windowMs: BIND_FAILURE_WINDOW_MS },
    {
      key: `smpp-id:${req.systemId.slice(0, 16)}`,
      limit: BIND_FAILURES_PER_SYSTEM_ID,
      windowMs: BIND_FAILURE_WINDOW_MS,
    },
  ];
  const reserved = [];
  for (const limit of keys) {
    const r = await reserveAttempt(db.kysely, limit);
    if (!r) {
      for (const done of reserved) await finishAttempt(db.kysely, done, 'released');
      return { status: BindStatus.BINDFAIL };
    }
    reserved.push(r);
  }
  const outcome = await authenticate(db, req);
  const failed = outcome.status === BindStatus.INVPASWD || outcome.status === BindStatus.INVSYSID;
  for (const r of reserved) await finishAttempt(db.kysely, r, failed ? 'failed' : 'released');
  return outcome;
}

async function authenticate(db: Db, req: BindRequest): Promise<BindOutcome> {
  const user = await findSmppUser(db.kysely, req.systemId);
  const passwordOk = await verifyPassword(req.password, user?.password_hash ?? DUMMY_HASH);
  if (!user) return { status: BindStatus.INVSYSID };
  if (!passwordOk) return { status: BindStatus.INVPASWD };
  const account = await activeAccount(db, Number(user.account_id));
  if (!account) return { status: BindStatus.BINDFAIL };
  if (!allowListAdmits(user.allow_ips ?? account.allow_ips, req.address)) return { status: BindStatus.BINDFAIL };
  const slot = await acquireBindSlot(
    db.kysely,
    { smpp_user_id: user.id, holder: req.holder, account_id: user.account_id, mode: req.mode, address: req.address },
    user.max_binds,
  );
  return slot === null ? { status: BindStatus.BINDFAIL } : { status: 0, user, slot };
}

/** The account when it and its parent are active (with its effective allow-list), else undefined. */
export function activeAccount(db: Db, accountId: number) {
  return selectCaller(db.kysely).where('accounts.id', '=', accountId).executeTakeFirst();
}
