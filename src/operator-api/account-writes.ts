import { applyAccountSettings, accountSettingOptions } from '../features/accounts/set-settings.js';
import { findAccountById, type Account } from '../accounts/index.js';
import { shownEmail } from '../accounts/subaccount-email.js';
import { accountTarget, AUDIT_MAX_PAGE, auditPage, sinceOf } from '../audit/service.js';
import type { AppContext } from '../context.js';
import { registerSender, isSenderName, unregisterSender } from '../features/sms/senders.js';
import { addMoRoute, removeMoRoute, routeKey } from '../features/mo-routes/service.js';
import { smppPassword, smppUserLimits, systemId } from '../features/smpp-users/schemas.js';
import { addSmppUser, hasSmppUser, removeSmppUser, setSmppUser } from '../features/smpp-users/service.js';
import type { SmppUserSettings } from '../features/smpp-users/schemas.js';
import { ApiError, badRequest } from '../http/errors.js';
import { recordApiChange, refusedAs } from './refusals.js';
import type { ApiActor } from './schemas.js';
import { fieldOf } from './write-schemas.js';

type Ctx = Pick<AppContext, 'db' | 'config'>;

async function accountOf(ctx: Pick<AppContext, 'db'>, id: number): Promise<Account> {
  const account = await findAccountById(ctx.db.kysely, id);
  if (!account) throw new ApiError(404, 'op_account_missing');
  return account;
}

const targetOf = (a: Account) => accountTarget(a.id, shownEmail(a.email));

/**
 * PATCH /accounts/{id}: `accounts set` with its options as fields (`rate_limit` for --rate-limit), each value read as
 * the option reads its text (true and false are on and off); the settings view it prints.
 */
export async function setAccountAs(ctx: Ctx, by: ApiActor, id: number, body: Record<string, unknown>) {
  const account = await accountOf(ctx, id);
  const view = await refusedAs('op_settings_invalid', async () => {
    const options: Record<string, unknown> = {};
    for (const option of accountSettingOptions()) {
      const value = body[fieldOf(option.attributeName())];
      if (value === undefined) continue;
      const text = typeof value === 'boolean' ? (value ? 'on' : 'off') : String(value);
      options[option.attributeName()] = option.parseArg ? option.parseArg(text, undefined) : text;
    }
    return applyAccountSettings(ctx, account, options);
  });
  await recordApiChange(ctx.db.kysely, by, { action: 'accounts.set', target: targetOf(account), detail: body });
  return view;
}

type SmppLimitsBody = {
  max_binds?: number;
  throughput?: number;
  window?: number;
  allow_ip?: string | string[];
  traffic_class?: string;
};

/** The limits as `smpp-users` options read them (text); a list of CIDRs as the option's CIDR,CIDR. */
const limitOptions = (b: SmppLimitsBody) => ({
  maxBinds: b.max_binds === undefined ? undefined : String(b.max_binds),
  throughput: b.throughput === undefined ? undefined : String(b.throughput),
  window: b.window === undefined ? undefined : String(b.window),
  allowIp:
    b.allow_ip === undefined ? undefined : Array.isArray(b.allow_ip) ? b.allow_ip.join(',') || 'none' : b.allow_ip,
  trafficClass: b.traffic_class,
});

/** An SMPP user as `smpp-users` prints it: a sub-account by the email its holder wrote. */
const printed = (s: SmppUserSettings) => ({ ...s, email: shownEmail(s.email) });

/** POST /smpp-users: `smpp-users add` for the account (the password hashed, never answered). */
export async function addSmppUserAs(
  ctx: Ctx,
  by: ApiActor,
  body: SmppLimitsBody & { account_id: number; system_id: string; password: string },
) {
  const account = await accountOf(ctx, body.account_id);
  const user = await refusedAs('op_smpp_user_invalid', async () => {
    const input = { systemId: systemId(body.system_id), password: smppPassword(body.password) };
    const limits = smppUserLimits(limitOptions(body));
    if (await hasSmppUser(ctx.db, input.systemId)) throw new ApiError(409, 'op_smpp_user_taken');
    return printed(await addSmppUser(ctx.db, account, { ...input, ...limits }));
  });
  const detail = { ...body, account_id: account.id };
  await recordApiChange(ctx.db.kysely, by, { action: 'smpp-users.add', target: user.system_id, detail });
  return user;
}

/** PATCH /smpp-users/{system_id}: `smpp-users set` (a new password applies from the next bind). */
export async function setSmppUserAs(ctx: Ctx, by: ApiActor, id: string, body: SmppLimitsBody & { password?: string }) {
  if (!(await hasSmppUser(ctx.db, id))) throw new ApiError(404, 'op_smpp_user_missing');
  const user = await refusedAs('op_smpp_user_invalid', async () => {
    const password = body.password === undefined ? {} : { password: smppPassword(body.password) };
    return printed(await setSmppUser(ctx.db, id, { ...smppUserLimits(limitOptions(body)), ...password }));
  });
  await recordApiChange(ctx.db.kysely, by, { action: 'smpp-users.set', target: id, detail: body });
  return user;
}

/** DELETE /smpp-users/{system_id}: `smpp-users remove`; its open binds close. */
export async function removeSmppUserAs(ctx: Ctx, by: ApiActor, id: string) {
  if (!(await hasSmppUser(ctx.db, id))) throw new ApiError(404, 'op_smpp_user_missing');
  const removed = await removeSmppUser(ctx.db, id);
  await recordApiChange(ctx.db.kysely, by, { action: 'smpp-users.remove', target: id, detail: { system_id: id } });
  return { removed };
}

/** POST /accounts/{id}/senders: `senders add`. */
export async function addSenderAs(ctx: Ctx, by: ApiActor, id: number, body: { sender: string; rcs: boolean }) {
  const account = await accountOf(ctx, id);
  if (!isSenderName(body.sender)) throw badRequest('op_sender_invalid');
  await registerSender(ctx, account.id, body.sender, body.rcs);
  await recordApiChange(ctx.db.kysely, by, { action: 'senders.add', target: targetOf(account), detail: body });
  return { sender: body.sender, rcs: body.rcs };
}

/** DELETE /accounts/{id}/senders?sender=NAME: `senders remove`; recorded when there was one. */
export async function removeSenderAs(ctx: Ctx, by: ApiActor, id: number, sender: string) {
  const account = await accountOf(ctx, id);
  const answer = await unregisterSender(ctx, account.id, sender);
  if (answer.removed)
    await recordApiChange(ctx.db.kysely, by, {
      action: 'senders.remove',
      target: targetOf(account),
      detail: { sender },
    });
  return answer;
}

/** POST /mo-routes: `mo-routes add`, the account by id. */
export async function addMoRouteAs(
  ctx: Ctx,
  by: ApiActor,
  body: { account_id: number; number?: string; keyword?: string },
) {
  const account = await accountOf(ctx, body.account_id);
  const key = routeKey({ number: body.number, keyword: body.keyword });
  if ('problem' in key) throw badRequest('op_mo_route_invalid', key.problem.replaceAll('--', ''));
  const added = await addMoRoute(ctx, account.id, key);
  if ('taken' in added)
    throw new ApiError(409, 'op_mo_route_taken', `already routed to ${added.taken.email} (id ${added.taken.id})`);
  const target = `mo-route:${added.route.id}`;
  await recordApiChange(ctx.db.kysely, by, { action: 'mo-routes.add', target, detail: { ...added.route } });
  return added.route;
}

/** DELETE /mo-routes/{id}. */
export async function removeMoRouteAs(ctx: Ctx, by: ApiActor, id: number) {
  if (!(await removeMoRoute(ctx, id))) throw new ApiError(404, 'op_mo_route_missing');
  await recordApiChange(ctx.db.kysely, by, { action: 'mo-routes.remove', target: `mo-route:${id}`, detail: { id } });
  return { removed: true };
}

/** GET /audit: one page of `audit list`. */
export async function auditAs(ctx: Pick<AppContext, 'db'>, q: { since: string; actor?: string; page: number }) {
  const since = sinceOf(q.since);
  if (since === undefined || q.page > AUDIT_MAX_PAGE) throw badRequest('op_audit_invalid');
  return auditPage(ctx.db.kysely, { since, actor: q.actor, page: q.page });
}
