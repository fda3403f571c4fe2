import type { WithDb } from '../../context.js';
import { NUMERIC_SENDER } from '../../messaging/accept.js';
import { deleteSender, sendersOf, upsertSender } from './store.js';

/** An alphanumeric sender: 1 to 11 letters, digits or spaces, at least one letter. */
const ALPHANUMERIC = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;

/** Whether `name` can be registered as a sender (`senders add`). */
export const isSenderName = (name: string): boolean => ALPHANUMERIC.test(name) || NUMERIC_SENDER.test(name);

/** Registers (or re-registers, updating its RCS link) one of the account's senders. */
export async function registerSender(ctx: WithDb, accountId: number, name: string, rcs: boolean): Promise<void> {
  await upsertSender(ctx.db.kysely, accountId, name, rcs);
}

/** Removes one of the account's senders (`senders remove`): sends naming it are refused from then on. */
export async function unregisterSender(ctx: WithDb, accountId: number, name: string): Promise<{ removed: boolean }> {
  return { removed: await deleteSender(ctx.db.kysely, accountId, name) };
}

/** The account's registered senders, by name. */
export const accountSenders = (ctx: WithDb, accountId: number) => sendersOf(ctx.db.kysely, accountId);
