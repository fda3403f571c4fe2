import type { AppContext, WithDb } from '../context.js';
import { changeAccountSettingsChecked, type AccountSettingChanges } from '../accounts/index.js';
import { allowListAdmits } from '../auth/allow-list.js';
import { refuse } from './view.js';
import { createSession, endAllSessions, panelAccount, type PanelSession } from './session.js';
import { operatorWithHash, setPasswordHash } from './store.js';
import { disableTotp, startTotp, totpEnabled, useTotpCode } from './totp.js';

// What the panel's pages ask of its own records (sessions, operators, authenticator codes): pages hold the context,
// never the database handle.

type Ctx = Pick<AppContext, 'db' | 'secrets' | 'config'>;

const principalId = (s: PanelSession) => s.account?.id ?? s.operator!.id;

/** The signed-in person with their password hash (accounts carry it in the session; operators are read). */
export async function principalOf(ctx: WithDb, s: PanelSession) {
  return s.operator ? operatorWithHash(ctx.db.kysely, s.operator.id) : s.account!;
}

/**
 * A new password: every session of the person ends (signed out everywhere) and a fresh one starts, in one transaction;
 * returns its cookie token.
 */
export function changePassword(ctx: Ctx, s: PanelSession, hash: string): Promise<string> {
  return ctx.db.kysely.transaction().execute(async (trx) => {
    await setPasswordHash(trx, s.kind, principalId(s), hash);
    await endAllSessions(trx, s.kind, principalId(s));
    return createSession(trx, s.kind, principalId(s), ctx.config.PANEL_SESSION_HOURS);
  });
}

export const totpIsOn = (ctx: WithDb, s: PanelSession) => totpEnabled(ctx.db.kysely, s.kind, principalId(s));

export const beginTotp = (ctx: Ctx, s: PanelSession, label: string) =>
  startTotp(ctx.db.kysely, ctx.secrets.panelTotpEncryption, s.kind, principalId(s), label);

/** The first good code turns two-step sign-in on. */
export const confirmTotp = (ctx: Ctx, s: PanelSession, code: string) =>
  useTotpCode(ctx.db.kysely, ctx.secrets.panelTotpEncryption, s.kind, principalId(s), code, true);

export const turnTotpOff = (ctx: WithDb, s: PanelSession) => disableTotp(ctx.db.kysely, s.kind, principalId(s));

/**
 * Saves an account's allow-list settings, read back as the panel will apply them (a parent's setting included):
 * nobody shuts their own browser out by mistake (nothing is saved then).
 */
export const saveAllowList = (ctx: WithDb, accountId: number, settings: AccountSettingChanges, ip: string) =>
  changeAccountSettingsChecked(ctx, accountId, settings, async (trx) => {
    const after = await panelAccount(trx, accountId);
    if (after && !allowListAdmits(after.panel_allow_ips, ip)) throw refuse(400, 'allow_list_locks_you_out', { ip });
  });
