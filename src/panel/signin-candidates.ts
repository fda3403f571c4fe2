import { sql } from 'kysely';
import type { Executor } from '../db/engine.js';
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
 * with that plain email, oldest first; at most SIGNIN_CANDIDATES.
 */
export async function signinCandidates(db: Executor, email: string): Promise<SigninCandidate[]> {
  const escaped = email.replace(/[\\%_]/g, (c) => `\\${c}`);
  const [operator, accounts] = await Promise.all([
    db.selectFrom('panel_operators').select(['id', 'password_hash']).where('email', '=', email).executeTakeFirst(),
    db
      .selectFrom('accounts')
      .select(['id', 'password_hash', 'parent_id'])
      .where('status', '=', 'active')
      .where((eb) =>
        eb.or([
          eb.and([eb('email', '=', email), eb('parent_id', 'is', null)]),
          eb.and([eb('parent_id', 'is not', null), sql<boolean>`${sql.ref('email')} like ${`% ${escaped}`} escape '\\'`]),
        ]),
      )
      .orderBy(sql`case when parent_id is null then 0 else 1 end`)
      .orderBy('id')
      .limit(SIGNIN_CANDIDATES)
      .execute(),
  ]);
  const found: SigninCandidate[] = operator ? [{ kind: 'operator', id: Number(operator.id), hash: operator.password_hash }] : [];
  for (const a of accounts) if (a.password_hash) found.push({ kind: 'account', id: Number(a.id), hash: a.password_hash });
  return found.slice(0, SIGNIN_CANDIDATES);
}
