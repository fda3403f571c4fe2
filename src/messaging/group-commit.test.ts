import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { toUnits } from '../accounts/credits.js';
import type { Refusal } from './refusal.js';
import { DISPATCH_JOB } from './dispatch.js';
import { GroupCommit } from './group-commit.js';
import { writeMessages } from './write.js';

describeEngines('group commit of sends', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const credits = async (accountId: number) =>
    (
      await h.ctx.db.kysely
        .selectFrom('accounts')
        .select('credits')
        .where('id', '=', accountId)
        .executeTakeFirstOrThrow()
    ).credits;
  const messagesOf = async (accountId: number) =>
    h.ctx.db.kysely.selectFrom('messages').select(['id', 'campaign_id']).where('account_id', '=', accountId).execute();

  it('commits neighbours together and rolls back alone the request that fails', async () => {
    const rich = await h.createAccount(10);
    const poor = await h.createAccount(0);
    const group = new GroupCommit(h.ctx.db);
    const send = (accountId: number) => (trx: Parameters<Parameters<GroupCommit['run']>[0]>[0]) =>
      writeMessages(trx, h.ctx, {
        accountId,
        channel: 'sms',
        source: 'sms',
        recipients: [{ countryCode: '52', number: '525512345678' }],
        text: 'Hola',
      });
    const failsAfterWriting = async (trx: Parameters<Parameters<GroupCommit['run']>[0]>[0]) => {
      await send(rich.id)(trx);
      throw new Error('a constraint failed after the debit');
    };
    // Queued in one turn of the event loop: they share one transaction.
    const results = await Promise.allSettled([
      group.run(send(rich.id), rich.id),
      group.run(send(poor.id), poor.id),
      group.run(failsAfterWriting, rich.id),
      group.run(send(rich.id), rich.id),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(((results[1] as PromiseRejectedResult).reason as Refusal).code).toBe('insufficient_credits');
    expect((results[2] as PromiseRejectedResult).reason.message).toBe('a constraint failed after the debit');
    // Two sends of one credit each: the failed request's debit and message were rolled back.
    expect(await credits(rich.id)).toBe(toUnits(8));
    expect(await messagesOf(rich.id)).toHaveLength(2);
    expect(await messagesOf(poor.id)).toHaveLength(0);
  });

  it('runs a batch without failures with no savepoint, and a batch with one again with a savepoint per request', async () => {
    const rich = await h.createAccount(10);
    const group = new GroupCommit(h.ctx.db);
    type Trx = Parameters<Parameters<GroupCommit['run']>[0]>[0];
    const seen: string[] = [];
    // The first request's work watches the statements the group commit itself runs on the shared transaction.
    const watching = async (trx: Trx) => {
      const execute = trx.executeQuery.bind(trx);
      trx.executeQuery = ((query: Parameters<Trx['executeQuery']>[0]) => {
        seen.push(('sql' in query ? query.sql : query.compile().sql).toLowerCase());
        return execute(query);
      }) as Trx['executeQuery'];
      return send(trx);
    };
    const send = (trx: Trx) =>
      writeMessages(trx, h.ctx, {
        accountId: rich.id,
        channel: 'sms',
        source: 'sms',
        recipients: [{ countryCode: '52', number: '525512345678' }],
        text: 'Hola',
      });
    await Promise.all([group.run(watching, rich.id), group.run(send, rich.id), group.run(send, rich.id)]);
    expect(seen.filter((q) => /^(savepoint|release)/.test(q))).toEqual([]);

    seen.length = 0;
    const fails = async () => {
      throw new Error('refused');
    };
    const results = await Promise.allSettled([
      group.run(watching, rich.id),
      group.run(fails, rich.id),
      group.run(send, rich.id),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(seen.filter((q) => /^release/.test(q)).length).toBeGreaterThan(0);
    // Five sends committed once each, although the first of the failed batch ran twice.
    expect(await credits(rich.id)).toBe(toUnits(5));
    expect(await messagesOf(rich.id)).toHaveLength(5);
  });

  it('accepts parallel single sends exactly as far as the balance goes, hands each over once and leaves no dispatch job behind', async () => {
    const a = await h.createAccount(5);
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        h.post('/sms/send', { numbers: String(5512000000 + i), message: 'Hola' }, a.apikey),
      ),
    );
    const accepted = replies.filter((r) => r.status === 200);
    expect(accepted).toHaveLength(5);
    expect(replies.filter((r) => r.status === 400).every((r) => r.body.code === 'sms_07')).toBe(true);
    expect(await credits(a.id)).toBe(0);
    const rows = await messagesOf(a.id);
    expect(rows).toHaveLength(5);
    const campaigns = rows.map((r) => r.campaign_id);
    await eventually(async () => {
      const open = await h.ctx.db.kysely
        .selectFrom('messages')
        .select('id')
        .where('account_id', '=', a.id)
        .where('stage', '<', 2)
        .execute();
      return open.length === 0;
    }, 15_000);
    const confirmations = await h.ctx.db.kysely
      .selectFrom('events')
      .select('reference')
      .where('account_id', '=', a.id)
      .where('type', '=', 'confirmation')
      .execute();
    expect(confirmations).toHaveLength(5);
    const sentAt = await h.ctx.db.kysely
      .selectFrom('messages')
      .select(['sent_at', 'carrier'])
      .where('account_id', '=', a.id)
      .execute();
    expect(sentAt.every((m) => m.sent_at !== null && m.carrier === 'simulator')).toBe(true);
    const jobs = await h.ctx.db.kysely.selectFrom('jobs').select('payload').where('kind', '=', DISPATCH_JOB).execute();
    expect(jobs.filter((j) => campaigns.includes(JSON.parse(j.payload).campaignId))).toHaveLength(0);
  });
});
