/* Shared setup of the opt-out suites (src/features/optouts/*.test.ts). */
import type { Readable } from 'node:stream';
import { createSession, SESSION_COOKIE } from '../../src/panel/session.js';
import type { Harness, TestAccount } from './harness.js';
import { csvUploads } from './imports.js';

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

/** A signed-in panel account (a sub-account of `parentId` when given) and what the Opt-outs page does for it. */
export async function panelOptouts(h: Harness, parentId?: number) {
  const account = await h.createAccount(10);
  if (parentId)
    await h.ctx.db.kysely.updateTable('accounts').set({ parent_id: parentId }).where('id', '=', account.id).execute();
  const cookie = `${SESSION_COOKIE}=${await createSession(h.ctx.db.kysely, 'account', account.id, 1)}`;
  const page = async (url = '/panel/optouts') => (await h.request('GET', url, { headers: { cookie } })).body as string;
  const csrf = async () => /name="_csrf" value="([^"]+)"/.exec(await page())![1];
  const action = async (name: 'add' | 'remove', form: Record<string, string>) =>
    h.request('POST', `/panel/optouts/${name}`, { headers: { cookie }, form: { _csrf: await csrf(), ...form } });
  const uploads = csvUploads(h, cookie, csrf);
  const upload = (csv: string, token?: string) => uploads.upload('/panel/optouts/import', csv, token);
  const uploadStream = (body: Readable) => uploads.uploadStream('/panel/optouts/import', body);
  const list = async () => (await h.get('/optouts', account.apikey)).body.optouts as Array<Record<string, string>>;
  return { account, cookie, page, action, upload, uploadStream, list };
}
