/* Shared setup of the opt-out suites (src/features/optouts/*.test.ts). */
import type { Harness, TestAccount } from './harness.js';

export function optoutTools(get: () => Harness) {
  const db = () => get().ctx.db.kysely;
  const credit = async (key: string) => (await get().post('/credits/consult', {}, key)).body.credit as number;
  const optOut = (key: string, numbers: string, extra: Record<string, unknown> = {}) =>
    get().post('/optouts', { numbers, ...extra }, key);
  const list = async (key: string, page?: number | string) =>
    (await get().get(page === undefined ? '/optouts' : `/optouts?page=${page}`, key)).body.optouts as Array<{
      number: string;
      source: string;
      created_at: string;
    }>;
  const message = (reference: string) =>
    db().selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
  /** The payloads of the account's events of one type. */
  const events = async (accountId: number, type: 'confirmation' | 'response') =>
    (
      await db()
        .selectFrom('events')
        .select('payload')
        .where('account_id', '=', accountId)
        .where('type', '=', type)
        .orderBy('id')
        .execute()
    ).map((e) => JSON.parse(e.payload) as Record<string, string>);
  /** A sub-account of `parent` (made directly: the sub-account API is not what these suites test). */
  const subAccountOf = async (parent: TestAccount, credits = 0): Promise<TestAccount> => {
    const sub = await get().createAccount(credits);
    await db().updateTable('accounts').set({ parent_id: parent.id }).where('id', '=', sub.id).execute();
    return sub;
  };
  return { credit, optOut, list, message, events, subAccountOf };
}
