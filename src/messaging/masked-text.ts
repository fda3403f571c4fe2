import type { Executor } from '../db/engine.js';
import { compiledOnce } from '../db/prepared.js';

// Compiled once per number of messages (a one-time code has one).
const maskText = compiledOnce((db, masked: string, ...messageIds: number[]) =>
  db.updateTable('messages').set({ text: masked }).where('id', 'in', messageIds).where('stage', '>', 0),
);

/**
 * Once the carrier has the message (or refused it), its stored text keeps the
 * code masked: reports show it, and the code lives only as its HMAC (OTP).
 */
export async function maskSentText(db: Executor, messageIds: number[], masked: string): Promise<void> {
  if (messageIds.length === 0) return;
  await maskText(db, masked, ...messageIds);
}
