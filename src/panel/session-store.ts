import type { Executor } from '../db/engine.js';
import { sha256Hex } from '../lib/secrets.js';
import { panelAllowList, type Account } from '../accounts/index.js';
import type { PrincipalKind } from './tables.js';

// The panel's sessions in the database. Front ends reach them through session.ts.

export interface Operator {
  id: number;
  email: string;
}

/** The signed-in browser of a request: an account (or sub-account) or an operator. */
export interface PanelSession {
  id: number;
  csrf: string;
  kind: PrincipalKind;
  /** Password given, authenticator code still to come: only the code page is open. */
  pendingTotp: boolean;
  account?: Account;
  /** The allow-list the panel applies to this account's requests (see panelAllowList); null: none. */
  allowIps: string | null;
  operator?: Operator;
}

/**
 * The live session of a cookie token, with its operator or its account (an
 * active one whose parent, if any, is active too); undefined otherwise.
 */
export async function loadSession(db: Executor, token: string | undefined): Promise<PanelSession | undefined> {
  if (!token || token.length > 100) return undefined;
  const row = await db
    .selectFrom('panel_sessions')
    .selectAll()
    .where('token_hash', '=', sha256Hex(token))
    .where('expires_at', '>', Date.now())
    .executeTakeFirst();
  if (!row) return undefined;
  const pendingTotp = row.pending_totp === 1;
  const base = { id: Number(row.id), csrf: row.csrf_token, kind: row.kind, pendingTotp, allowIps: null };
  if (row.kind === 'operator') {
    const operator = await db
      .selectFrom('panel_operators')
      .select(['id', 'email'])
      .where('id', '=', row.principal_id)
      .executeTakeFirst();
    return operator ? { ...base, operator: { id: Number(operator.id), email: operator.email } } : undefined;
  }
  const found = await panelAccount(db, row.principal_id);
  if (!found) return undefined;
  const { panel_allow_ips: allowIps, ...account } = found;
  return { ...base, account, allowIps };
}

type PanelAccount = Account & { panel_allow_ips: string | null };

/**
 * The account of a panel session with the allow-list its panel applies, read
 * with its parent in one query: a suspended family has no session.
 */
export function panelAccount(db: Executor, id: number): Promise<PanelAccount | undefined> {
  return db
    .selectFrom('accounts')
    .leftJoin('accounts as parent', 'parent.id', 'accounts.parent_id')
    .selectAll('accounts')
    .select(panelAllowList.as('panel_allow_ips'))
    .where('accounts.id', '=', id)
    .where('accounts.status', '=', 'active')
    .where((eb) => eb.or([eb('accounts.parent_id', 'is', null), eb('parent.status', '=', 'active')]))
    .executeTakeFirst();
}
