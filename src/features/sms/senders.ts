import type { WithDb } from '../../context.js';
import { upsertSender } from './store.js';

/** An alphanumeric sender: 1 to 11 letters, digits or spaces, at least one letter. */
const ALPHANUMERIC = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;
/** A numeric sender: a short code or a long number with its country code, 3 to 15 digits. */
const NUMERIC = /^\d{3,15}$/;

/** Whether `name` can be registered as a sender (`senders add`). */
export const isSenderName = (name: string): boolean => ALPHANUMERIC.test(name) || NUMERIC.test(name);

/** Whether a send's `sender` could name a registered sender at all (else it means the default sender, unlooked-up). */
export const mayBeSender = (name: string): boolean => name.length <= 11 || NUMERIC.test(name);

/** Registers (or re-registers, updating its RCS link) one of the account's senders. */
export async function registerSender(ctx: WithDb, accountId: number, name: string, rcs: boolean): Promise<void> {
  await upsertSender(ctx.db.kysely, accountId, name, rcs);
}
