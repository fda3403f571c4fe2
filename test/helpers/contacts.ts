import { expect } from 'vitest';
import { createList } from '../../src/features/contacts/store.js';
import type { Harness, TestAccount } from './harness.js';

/** The lists and contacts the contacts tests make through the API: as `account` unless another key is given. */
export function contactCalls(harness: () => Harness, account: () => TestAccount) {
  let seq = 0;
  const newList = async (apikey = account().apikey): Promise<string> => {
    const r = await harness().post('/agendas/add', { agenda_name: `list ${++seq}` }, apikey);
    expect(r.body.code).toBe('agenda_01');
    return r.body.list_key;
  };
  const linkedList = async (tool: 'wallet' | 'loyalty') =>
    (await createList(harness().ctx.db.kysely, { accountId: account().id, name: `program ${++seq}`, linkedTool: tool }))
      .list_key;
  const add = (body: Record<string, unknown>, apikey = account().apikey) =>
    harness().post('/contacts/add', body, apikey);
  const entries = async (listKey: string, apikey = account().apikey) => {
    const r = await harness().post('/agendas/get_contacts', { list_key: listKey }, apikey);
    expect(r.status).toBe(200);
    return r.body.result as Array<{
      contact_id: number;
      contact_name: string;
      contact_number: string;
      contact_email: string;
    }>;
  };
  return { newList, linkedList, add, entries };
}
