/* Shared tools of the POST /sms/send suites (src/features/sms/send*.test.ts). */
import type { Harness } from './harness.js';

/** The account's balance and a stored message, over the harness `get` returns. */
export function sendTools(get: () => Harness) {
  const credit = async (key: string) => (await get().post('/credits/consult', {}, key)).body.credit;
  const message = (reference: string) =>
    get().ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
  return { credit, message };
}
