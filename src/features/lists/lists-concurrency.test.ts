import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';
import { listCalls } from '../../../test/helpers/lists.js';

/** Contact lists under parallel requests, and a list larger than one streamed chunk. */
describeEngines('contact lists', (engine) => {
  let h: Harness;
  let a: TestAccount;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    a = await h.createAccount();
  });
  afterAll(() => h.close());

  const { addList, newList, fillList } = listCalls(
    () => h,
    () => a,
  );

  describe('POST /agendas/add', () => {
    it('creates a name once under parallel requests', async () => {
      const replies = await Promise.all(Array.from({ length: 10 }, () => addList({ agenda_name: 'Paralela' })));
      expect(replies.filter((r) => r.body.code === 'agenda_01')).toHaveLength(1);
      expect(replies.filter((r) => r.status === 400 && r.body.code === 'agenda_04')).toHaveLength(9);
    });
  });

  describe('POST /agendas/get_contacts', () => {
    it('streams a list larger than one chunk completely, in order, as valid JSON', async () => {
      const key = await newList();
      await fillList(key, a.id, 4_501);
      const r = await h.post('/agendas/get_contacts', { list_key: key }, a.apikey);
      expect(typeof r.body).toBe('object');
      const numbers = r.body.result.map((e: any) => e.contact_number);
      expect(numbers).toHaveLength(4_501);
      expect(new Set(numbers).size).toBe(4_501);
      expect(numbers[0]).toBe('525500000000');
      expect(numbers[4_500]).toBe('525500004500');
      const ids = r.body.result.map((e: any) => e.contact_id);
      expect([...ids].sort((x: number, y: number) => x - y)).toEqual(ids);
    });
  });

  describe('POST /agendas/delete', () => {
    it('deletes once under parallel requests', async () => {
      const key = await newList();
      await fillList(key, a.id, 50);
      const replies = await Promise.all(
        Array.from({ length: 6 }, () => h.post('/agendas/delete', { list_key: key }, a.apikey)),
      );
      expect(replies.filter((r) => r.body.code === 'delete_agenda_01')).toHaveLength(1);
      expect(replies.filter((r) => r.status === 400 && r.body.code === 'contact_07')).toHaveLength(5);
    });
  });
});
