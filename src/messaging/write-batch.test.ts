import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { toUnits } from '../accounts/credits.js';
import { Refusal } from './refusal.js';
import { addOptouts } from './optouts.js';
import { writeMessageBatch } from './write.js';
import type { SendRequest } from './types.js';

describeEngines('several sends of one account in one pass (writeMessageBatch)', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const credits = async (accountId: number) =>
    Number(
      (
        await h.ctx.db.kysely
          .selectFrom('accounts')
          .select('credits')
          .where('id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).credits,
    );
  const send = (accountId: number, number: string, text: string, extra: Partial<SendRequest> = {}): SendRequest => ({
    accountId,
    channel: 'sms',
    source: 'sms',
    recipients: [{ countryCode: '52', number }],
    text,
    ...extra,
  });
  const batch = (reqs: SendRequest[]) =>
    h.ctx.db.kysely.transaction().execute((trx) => writeMessageBatch(trx, h.ctx, reqs));

  it('gives each send its campaign, messages, ids and charge, with one debit of their sum', async () => {
    const a = await h.createAccount(10);
    const texts = ['uno', 'dos', 'tres'];
    const results = await batch([
      send(a.id, '525511111111', texts[0]),
      send(a.id, '525522222222', texts[1], { priceUnits: toUnits(2) }),
      send(a.id, '525533333333', texts[2], { scheduledAt: Date.now() + 3_600_000 }),
    ]);
    expect(new Set(results.map((r) => r.campaignId)).size).toBe(3);
    expect(results.map((r) => r.creditUnits)).toEqual([toUnits(1), toUnits(2), toUnits(1)]);
    expect(await credits(a.id)).toBe(toUnits(6));
    for (const [i, r] of results.entries()) {
      const row = await h.ctx.db.kysely
        .selectFrom('messages')
        .selectAll()
        .where('id', '=', r.messageIds[0])
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ campaign_id: r.campaignId, reference: r.references[0].reference, text: texts[i] });
      expect(row.status).toBe(i === 2 ? 'scheduled' : 'queued');
      const campaign = await h.ctx.db.kysely
        .selectFrom('campaigns')
        .selectAll()
        .where('id', '=', r.campaignId)
        .executeTakeFirstOrThrow();
      expect(campaign.total).toBe(1);
      expect(campaign.scheduled_at === null).toBe(i !== 2);
    }
  });

  it('gives the ids of a send written in several INSERTs in recipient order', async () => {
    const a = await h.createAccount(100);
    // 37 rows: pieces of 32, 4 and 1.
    const numbers = Array.from({ length: 37 }, (_, i) => `5255${String(10000000 + i)}`);
    const [r] = await batch([
      { ...send(a.id, numbers[0], 'muchos'), recipients: numbers.map((number) => ({ countryCode: '52', number })) },
    ]);
    const rows = await h.ctx.db.kysely
      .selectFrom('messages')
      .select(['id', 'number', 'reference'])
      .where('campaign_id', '=', r.campaignId)
      .execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(r.messageIds).toHaveLength(37);
    r.messageIds.forEach((id, i) =>
      expect(byId.get(id)).toMatchObject({ number: numbers[i], reference: r.references[i].reference }),
    );
  });

  it('refuses the whole batch (insufficient_credits) when the balance does not cover the sum, writing nothing', async () => {
    const a = await h.createAccount(2);
    const attempt = batch([1, 2, 3].map((n) => send(a.id, `52551111111${n}`, 'hola')));
    await expect(attempt).rejects.toBeInstanceOf(Refusal);
    await expect(attempt).rejects.toMatchObject({ code: 'insufficient_credits' });
    expect(await credits(a.id)).toBe(toUnits(2));
    const stored = await h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', a.id).execute();
    expect(stored).toHaveLength(0);
  });

  it('closes an opted-out recipient in its own send only, uncharged', async () => {
    const a = await h.createAccount(10);
    await addOptouts(h.ctx.db.kysely, a.id, ['525544444444'], 'api', Date.now());
    const results = await batch([
      send(a.id, '525544444444', 'no'),
      send(a.id, '525555555555', 'sí'),
      send(a.id, '525544444444', 'otra vez no'),
    ]);
    expect(results.map((r) => r.optedOut)).toEqual([['525544444444'], [], ['525544444444']]);
    expect(results.map((r) => r.creditUnits)).toEqual([0, toUnits(1), 0]);
    expect(await credits(a.id)).toBe(toUnits(9));
  });

  it('refuses a batch that mixes accounts', async () => {
    const a = await h.createAccount(10);
    const b = await h.createAccount(10);
    await expect(batch([send(a.id, '525511111111', 'x'), send(b.id, '525511111111', 'y')])).rejects.toThrow(
      /shares its account/,
    );
  });
});
