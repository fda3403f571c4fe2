import type { Executor } from '../db/engine.js';
import { signinRows } from './store.js';
import { allowListAdmits } from '../auth/allow-list.js';
import type { PrincipalKind } from './tables.js';

/**
 * How many people one typed email may name at sign-in: an operator, a
 * top-level account and sub-accounts of different parents can share a plain
 * email (issue 14 stores a sub-account's as `<parent id> <email>`). The
 * password is checked against exactly this many hashes on every attempt
 * (unused slots against a hash nobody has), so the time taken does not tell
 * how many exist; and one attempt costs at most this many scrypts.
 */
export const SIGNIN_CANDIDATES = 3;

export interface SigninCandidate {
  kind: PrincipalKind;
  id: number;
  hash: string;
}

/**
 * Who a typed (lowercased) email may be, in the order the password is tried:
 * the operator, then the active top-level account, then active sub-accounts
 * of active parents with that plain email, oldest first; at most SIGNIN_CANDIDATES.
 * Accounts whose panel is closed to `ip` (panel_allow_ip) are left out.
 */
export async function signinCandidates(db: Executor, email: string, ip: string): Promise<SigninCandidate[]> {
  const [operator, accounts] = await signinRows(db, email, SIGNIN_CANDIDATES);
  const found: SigninCandidate[] = operator
    ? [{ kind: 'operator', id: Number(operator.id), hash: operator.password_hash }]
    : [];
  // An account whose panel is closed to this address is nobody here: the answer is the one for a wrong password.
  for (const a of accounts) {
    if (a.password_hash && allowListAdmits(a.panel_allow_ips, ip))
      found.push({ kind: 'account', id: Number(a.id), hash: a.password_hash });
  }
  return found.slice(0, SIGNIN_CANDIDATES);
}
