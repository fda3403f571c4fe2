import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { addCredits } from '../features/accounts/admin.js';
import { cancelScheduled } from '../messaging/scheduled.js';
import { closeUnsent, EXPIRED_STATUS } from '../messaging/close-unsent.js';
import { formatLocal } from '../lib/time.js';
import { writeMessageBatch } from '../messaging/write.js';
import type { SendRequest } from '../messaging/types.js';
import { toUnits } from './credits.js';
import { ledgerPage, type LedgerEntryView } from './ledger-store.js';

/**
 * Each entry's balance before it is the next (older) entry's balance after it, the newest one's is the balance now,
 * and the entries add up to the difference between the balance now and the one before the oldest.
 */
async function expectChained(h: Harness, accountId: number, opening: number): Promise<LedgerEntryView[]> {
  const entries: LedgerEntryView[] = [];
  for (let page = 1; ; page++) {
    const got = await ledgerPage(h.ctx.db.kysely, accountId, { page });
    entries.push(...got.entries);
    if (!got.has_more) break;
  }
  const row = await h.ctx.db.kysely
    .selectFrom('accounts')
    .select('credits')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  const now = Number(row.credits) / 10_000;
  expect(entries[0]?.balance_after ?? opening).toBeCloseTo(now, 4);
  for (let i = 0; i + 1 < entries.length; i++)
    expect(entries[i].balance_after - entries[i].amount, JSON.stringify(entries[i])).toBeCloseTo(
      entries[i + 1].balance_after,
      4,
    );
  const sum = entries.reduce((n, e) => n + e.amount, 0);
  expect(sum).toBeCloseTo(now - opening, 4);
  return entries;
}

describeEngines('the credit ledger', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const sent = async (apikey: string, body: Record<string, unknown>) => {
    const r = await h.post('/sms/send', { message: 'Hola', ...body }, apikey);
    expect(r.body.code, JSON.stringify(r.body)).toBe('sms_11');
    const message = await h.ctx.db.kysely
      .selectFrom('messages')
      .select('campaign_id')
      .where('reference', '=', r.body.references[0].reference)
      .executeTakeFirstOrThrow();
    return { ...r.body, campaign_id: Number(message.campaign_id) };
  };

  it('keeps one entry per movement: operator credits, a send request (not per message), refunds, transfers', async () => {
    const a = await h.createAccount(10);
    expect(await addCredits(h.ctx.db, a.id, toUnits(5), { actor: 'cli', reason: 'factura 12' })).toBe(true);
    expect(await addCredits(h.ctx.db, a.id, toUnits(-2), { actor: 'cli', reason: 'corrección' })).toBe(true);
    expect(await addCredits(h.ctx.db, a.id, toUnits(-100), { actor: 'cli' })).toBe(false);
    const send = await sent(a.apikey, { numbers: '5512345671,5512345672,5512345673' });
    const later = formatLocal(Date.now() + 3_600_000);
    const scheduled = await sent(a.apikey, { numbers: '5512345674', date: later });
    expect(await cancelScheduled(h.ctx.db, a.id, scheduled.references[0].reference)).toBe(true);
    // Two messages of the account closed unsent in one transaction: one refund entry.
    const two = await sent(a.apikey, { numbers: '5512345675,5512345676', date: later });
    const ids = (
      await h.ctx.db.kysely.selectFrom('messages').select('id').where('campaign_id', '=', two.campaign_id).execute()
    ).map((m) => Number(m.id));
    await h.ctx.db.kysely
      .transaction()
      .execute((trx) => closeUnsent(trx, ids, EXPIRED_STATUS, 'expired', null, Date.now()));
    await h.post('/manager/subaccount/add', { email: 'hija@example.com', password: 'secreto1' }, a.apikey);
    const moved = await h.post(
      '/manager/subaccount/credits/manage',
      { email: 'hija@example.com', type: 1, credits: 3 },
      a.apikey,
    );
    expect(moved.body.code).toBe('subaccount_01');

    const entries = await expectChained(h, a.id, 10);
    expect(entries.map((e) => [e.kind, e.amount])).toEqual([
      ['transfer', -3],
      ['refund', 2],
      ['send', -2],
      ['refund', 1],
      ['send', -1],
      ['send', -3],
      ['adjustment', -2],
      ['credit', 5],
    ]);
    expect(entries[7]).toMatchObject({ reason: 'factura 12', actor: 'cli', reference: null });
    expect(entries[5]).toMatchObject({ actor: 'account', reference: `campaign:${send.campaign_id}` });
    expect(entries[3]).toMatchObject({ reference: scheduled.references[0].reference, actor: 'account' });
    expect(entries[1]).toMatchObject({ actor: 'system', reason: '2 messages: expired', reference: null });
    expect(entries[0].reference).toMatch(/^account:\d+$/);
    const sub = Number(entries[0].reference!.slice('account:'.length));
    const subEntries = await expectChained(h, sub, 0);
    expect(subEntries).toMatchObject([{ kind: 'transfer', amount: 3, balance_after: 3, reference: `account:${a.id}` }]);
    // Sandbox sends and sends to no one charged move nothing and leave no entry.
    await sent(a.apikey, { numbers: '5512345677', sandbox: 1 });
    expect((await ledgerPage(h.ctx.db.kysely, a.id, { page: 1 })).entries).toHaveLength(8);
  });

  it('adds up under concurrent sends and operator credits', async () => {
    const a = await h.createAccount(100);
    const work = [
      ...Array.from({ length: 24 }, (_, i) =>
        h.post('/sms/send', { numbers: `55123456${String(i).padStart(2, '0')},5512340000`, message: 'Hola' }, a.apikey),
      ),
      ...Array.from({ length: 6 }, () => addCredits(h.ctx.db, a.id, toUnits(1.5), { actor: 'cli' })),
    ];
    await Promise.all(work);
    const entries = await expectChained(h, a.id, 100);
    expect(entries.filter((e) => e.kind === 'send')).toHaveLength(24);
    expect(entries.filter((e) => e.kind === 'credit')).toHaveLength(6);
    expect(entries.every((e) => e.balance_after >= 0)).toBe(true);
  });

  it('gives each request of a batched send (one turn of an SMPP bind) its own entry, in the order of the batch', async () => {
    const a = await h.createAccount(10);
    const send = (number: string, priceUnits: number): SendRequest => ({
      accountId: a.id,
      channel: 'sms',
      source: 'sms',
      recipients: [{ countryCode: '52', number }],
      text: 'Hola',
      priceUnits,
    });
    const results = await h.ctx.db.kysely
      .transaction()
      .execute((trx) =>
        writeMessageBatch(trx, h.ctx, [send('525511111111', toUnits(1)), send('525522222222', toUnits(2))]),
      );
    const entries = await expectChained(h, a.id, 10);
    expect(entries).toMatchObject([
      { kind: 'send', amount: -2, balance_after: 7, reference: `campaign:${results[1].campaignId}` },
      { kind: 'send', amount: -1, balance_after: 9, reference: `campaign:${results[0].campaignId}` },
    ]);
  });

  it('pages newest first, 100 a page, and keeps the period asked for', async () => {
    const a = await h.createAccount(0);
    for (let i = 1; i <= 101; i++) await addCredits(h.ctx.db, a.id, toUnits(1), { actor: 'cli', reason: `#${i}` });
    const first = await ledgerPage(h.ctx.db.kysely, a.id, { page: 1 });
    expect(first).toMatchObject({ page: 1, has_more: true });
    expect(first.entries[0]).toMatchObject({ reason: '#101', balance_after: 101 });
    const second = await ledgerPage(h.ctx.db.kysely, a.id, { page: 2 });
    expect(second).toMatchObject({ page: 2, has_more: false, entries: [{ reason: '#1', balance_after: 1 }] });
    expect((await ledgerPage(h.ctx.db.kysely, a.id, { page: 1, to: Date.now() - 86_400_000 })).entries).toEqual([]);
    await expectChained(h, a.id, 0);
  });
});
