import { sql } from 'kysely';
import type { Executor } from '../db/engine.js';
import { panelAllowList } from '../accounts/index.js';
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
  const escaped = email.replace(/[\\%_]/g, (c) => `\\${c}`);
  const [operator, accounts] = await Promise.all([
    db.selectFrom('panel_operators').select(['id', 'password_hash']).where('email', '=', email).executeTakeFirst(),
    db
      .selectFrom('accounts')
      .leftJoin('accounts as parent', 'parent.id', 'accounts.parent_id')
      .select(['accounts.id', 'accounts.password_hash', 'accounts.parent_id', panelAllowList.as('panel_allow_ips')])
      .where('accounts.status', '=', 'active')
      .where((eb) =>
        eb.or([
          eb.and([eb('accounts.email', '=', email), eb('accounts.parent_id', 'is', null)]),
          eb.and([
            eb('parent.status', '=', 'active'),
            sql<boolean>`${sql.ref('accounts.email')} like ${`% ${escaped}`} escape '\\'`,
          ]),
        ]),
      )
      .orderBy(sql`case when accounts.parent_id is null then 0 else 1 end`)
      .orderBy('accounts.id')
      .limit(SIGNIN_CANDIDATES)
      .execute(),
  ]);
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
