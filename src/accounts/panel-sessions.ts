import type { Executor } from '../db/engine.js';
import { randomToken } from '../lib/ids.js';
import { sha256Hex } from '../lib/secrets.js';
import type { PrincipalKind } from './tables.js';

// The panel's sessions are written here, beside the accounts whose password change or archive ends them; the panel
// reads them (src/panel/session-store.ts) and starts and ends them through these functions.

/** Starts a session; returns the cookie token (only its hash is stored). */
export async function createPanelSession(
  db: Executor,
  kind: PrincipalKind,
  principalId: number,
  hours: number,
  pendingTotp = false,
): Promise<string> {
  const token = randomToken(32);
  const now = Date.now();
  await db
    .insertInto('panel_sessions')
    .values({
      token_hash: sha256Hex(token),
      csrf_token: randomToken(24),
      kind,
      principal_id: principalId,
      created_at: now,
      expires_at: now + hours * 3_600_000,
      pending_totp: pendingTotp ? 1 : 0,
    })
    .execute();
  return token;
}

export async function endPanelSession(db: Executor, sessionId: number): Promise<void> {
  await db.deleteFrom('panel_sessions').where('id', '=', sessionId).execute();
}

/** Signs a person out everywhere: every browser of theirs. */
export async function endPanelSessions(db: Executor, kind: PrincipalKind, principalId: number): Promise<void> {
  await db.deleteFrom('panel_sessions').where('kind', '=', kind).where('principal_id', '=', principalId).execute();
}

/** Expired sessions are useless rows: removed at each sign-in. */
export async function prunePanelSessions(db: Executor): Promise<void> {
  await db.deleteFrom('panel_sessions').where('expires_at', '<=', Date.now()).execute();
}
