import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { runCommands } from '../../test/helpers/cli.js';
import { features } from '../app/features.js';
import { pruneAuditLog } from '../audit/store.js';
import { marginCommands } from '../features/reports/cli.js';
import { tools } from '../features/reports/testing.js';
import { messageCommands } from '../features/messages/cli.js';
import { formatLocalDate } from '../lib/time.js';
import { applyDeliveryReports } from './delivery.js';
import { dispatchMessages } from './dispatch.js';
import { pruneOldMessages, retentionCoversFrom } from './retention.js';

const DAY = 86_400_000;

/** MESSAGES_KEEP_DAYS 30: what a prune removes (and exports first), what it keeps, in batches. */
describeEngines('message and audit retention', (engine) => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    h = await startHarness(engine, {
      worker: false,
      env: { MESSAGES_KEEP_DAYS: '30', AUDIT_KEEP_DAYS: '90', REPORTS_PER_MINUTE: '1000' },
    });
    dir = mkdtempSync(join(tmpdir(), 'retention-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await h.close();
  });
  const db = () => h.ctx.db.kysely;
  const { submit, generate } = tools(() => h);
  const forget = features.flatMap((f) => (f.forgetMessages ? [f.forgetMessages] : []));
  const old = () => Date.now() - 40 * DAY;

  /** Sends to `numbers`, hands every one over, and gives the first `final` of them a delivery report. */
  async function sent(accountId: number, numbers: string[], final = numbers.length) {
    const res = await submit(accountId, numbers);
    await dispatchMessages(h.ctx, res.messageIds);
    const at = Date.now();
    await applyDeliveryReports(
      h.ctx,
      res.messageIds.slice(0, final).map((messageId) => ({ messageId, code: 0, at })),
    );
    return { campaignId: res.campaignId, ids: res.messageIds, refs: res.references.map((r) => r.reference) };
  }
  const age = async (ids: number[], campaignId: number) => {
    await db().updateTable('messages').set({ created_at: old() }).where('id', 'in', ids).execute();
    await db().updateTable('campaigns').set({ created_at: old() }).where('id', '=', campaignId).execute();
  };
  const event = (accountId: number, reference: string, state: 'pending' | 'delivered') => ({
    account_id: accountId,
    type: 'confirmation' as const,
    reference,
    payload: '{}',
    state,
    created_at: old(),
    delivered_at: state === 'delivered' ? old() : null,
  });
  const count = async (table: 'replies' | 'read_trackings' | 'message_attempts' | 'payment_requests', id: number) =>
    Number(
      (
        await db()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('message_id', '=', id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('exports, then prunes in batches exactly the old final messages with every row of theirs, and keeps the rest', async () => {
    const a = await h.createAccount(1000);
    // Old campaign of 3: two final, one still waiting for its receipt (kept, and so is the campaign).
    const mixed = await sent(a.id, ['5510000001', '5510000002', '5510000003'], 2);
    await age(mixed.ids, mixed.campaignId);
    // Old campaign all final: its messages, the campaign and its short link go.
    const done = await sent(a.id, ['5510000004', '5510000005', '5510000006']);
    await age(done.ids, done.campaignId);
    await db()
      .insertInto('short_links')
      .values({
        code: `r${done.campaignId}`,
        account_id: a.id,
        campaign_id: done.campaignId,
        url: 'https://e.x/',
        created_at: old(),
        last_click_at: null,
      })
      .execute();
    // Old but not final: queued, scheduled.
    const queued = await submit(a.id, ['5510000007']);
    const scheduled = await submit(a.id, ['5510000008'], { scheduledAt: Date.now() + 3_600_000 });
    await age(queued.messageIds, queued.campaignId);
    await age(scheduled.messageIds, scheduled.campaignId);
    // Old and final, but its webhook event is still being delivered: kept until it is.
    const hooked = await sent(a.id, ['5510000009']);
    await age(hooked.ids, hooked.campaignId);
    await db()
      .insertInto('events')
      .values(event(a.id, hooked.refs[0], 'pending'))
      .execute();
    // Recent and final.
    const recent = await sent(a.id, ['5510000010']);

    // Every row of a pruned message, and a reply of a kept one.
    const [gone] = done.ids;
    const goneRef = done.refs[0];
    await db()
      .insertInto('replies')
      .values([
        { account_id: a.id, message_id: gone, number: '525510000004', text: 'ok', received_at: old() },
        { account_id: a.id, message_id: recent.ids[0], number: '525510000010', text: 'si', received_at: Date.now() },
      ])
      .execute();
    await db()
      .insertInto('read_trackings')
      .values({
        token: `t${gone}`,
        account_id: a.id,
        message_id: gone,
        url: 'https://e.x/',
        contact_id: null,
        created_at: old(),
        first_read_at: null,
        last_read_at: null,
      })
      .execute();
    await db()
      .insertInto('message_attempts')
      .values({ message_id: gone, carrier: 'x', at: old(), code: null, error: 'throttled' })
      .execute();
    const [ev] = await db()
      .insertInto('events')
      .values(event(a.id, goneRef, 'delivered'))
      .returning('id')
      .execute();
    await db()
      .insertInto('event_attempts')
      .values({
        event_id: Number(ev.id),
        account_id: a.id,
        attempted_at: old(),
        url: 'https://e.x/',
        method: 'POST',
        http_status: 200,
        duration_ms: 5,
        error: null,
      })
      .execute();
    await db()
      .insertInto('payment_requests')
      .values({
        request_id: `req-${gone}`,
        token: `tok${String(gone).padStart(9, '0')}`,
        account_id: a.id,
        message_id: gone,
        reference: goneRef,
        country_code: '52',
        number: '525510000004',
        template: 'Pago',
        message: 'Pague',
        amount_cents: 1500,
        currency: 'MXN',
        name: null,
        email: null,
        provider: 'stripe',
        checkout_id: `cs_${gone}`,
        created_at: old(),
        paid_at: null,
        provider_ref: null,
        paid_amount_cents: null,
        checkout_url: null,
        checkout_closed_at: null,
        checkout_closed_reason: null,
      })
      .execute();
    const ledger = async () =>
      (
        await db()
          .selectFrom('credit_ledger')
          .select(['amount', 'balance_after'])
          .orderBy('id')
          .where('account_id', '=', a.id)
          .execute()
      ).map((r) => [Number(r.amount), Number(r.balance_after)]);
    const balance = async () => (await h.post('/credits/consult', {}, a.apikey)).body.credit;
    const [ledgerBefore, balanceBefore] = [await ledger(), await balance()];
    const prunable = [...mixed.refs.slice(0, 2), ...done.refs].sort();

    // The export first: what the next prune removes, as JSON lines and as CSV.
    const before = formatLocalDate(Date.now() - 30 * DAY);
    const exported = async (format: string) => {
      const output = join(dir, `export.${format}`);
      const summary = await runCommands(
        h.ctx,
        [messageCommands],
        ['messages', 'export', '--before', before, '--format', format, '--output', output],
      );
      return { summary, lines: readFileSync(output, 'utf8').trimEnd().split('\n') };
    };
    const jsonl = await exported('jsonl');
    expect(jsonl.summary).toMatchObject({ messages: 5, format: 'jsonl', covers_next_prune: false });
    const rows = jsonl.lines.map((l) => JSON.parse(l));
    expect(rows.map((r) => r.reference).sort()).toEqual(prunable);
    expect(rows[0]).toMatchObject({
      account_id: a.id,
      status: 'delivered',
      dlr_code: 0,
      text: 'Hola',
      created_at: expect.any(Number),
    });
    const csv = await exported('csv');
    expect(csv.lines[0].split(',').slice(0, 3)).toEqual(['id', 'reference', 'account_id']);
    expect(
      csv.lines
        .slice(1)
        .map((l) => l.split(',')[1])
        .sort(),
    ).toEqual(prunable);
    // An existing file is never overwritten.
    writeFileSync(join(dir, 'kept.jsonl'), 'archive\n');
    const refused = await runCommands(
      h.ctx,
      [messageCommands],
      ['messages', 'export', '--before', before, '--output', join(dir, 'kept.jsonl')],
    );
    expect(refused.error).toMatch(/cannot write --output/);
    expect(readFileSync(join(dir, 'kept.jsonl'), 'utf8')).toBe('archive\n');

    // Three messages a transaction: two batches.
    const pruned = await pruneOldMessages(h.ctx, Date.now(), forget, { batch: 3, pauseMs: 0 });
    expect(pruned.messages).toBe(5);
    const left = await db().selectFrom('messages').select('reference').where('account_id', '=', a.id).execute();
    expect(left.map((m) => m.reference).sort()).toEqual(
      [
        mixed.refs[2],
        queued.references[0].reference,
        scheduled.references[0].reference,
        hooked.refs[0],
        recent.refs[0],
      ].sort(),
    );
    for (const table of ['replies', 'read_trackings', 'message_attempts', 'payment_requests'] as const)
      expect(await count(table, gone), table).toBe(0);
    expect(await count('replies', recent.ids[0])).toBe(1);
    expect(await db().selectFrom('events').select('id').where('reference', '=', goneRef).execute()).toEqual([]);
    expect(await db().selectFrom('event_attempts').select('id').where('event_id', '=', ev.id).execute()).toEqual([]);
    const campaigns = await db().selectFrom('campaigns').select('id').where('account_id', '=', a.id).execute();
    expect(campaigns.map((c) => Number(c.id))).not.toContain(done.campaignId);
    expect(campaigns.map((c) => Number(c.id))).toContain(mixed.campaignId);
    expect(
      await db().selectFrom('short_links').select('id').where('campaign_id', '=', done.campaignId).execute(),
    ).toEqual([]);
    // The ledger keeps its rows: the balance still adds up.
    expect(await ledger()).toEqual(ledgerBefore);
    expect(await balance()).toBe(balanceBefore);
    const units = await db().selectFrom('accounts').select('credits').where('id', '=', a.id).executeTakeFirstOrThrow();
    expect(ledgerBefore.at(-1)![1]).toBe(Number(units.credits));
    // Nothing more to remove.
    expect((await pruneOldMessages(h.ctx, Date.now(), forget, { batch: 3, pauseMs: 0 })).messages).toBe(0);
  });

  it('reports and margins say the first day they cover', async () => {
    const a = await h.createAccount(10);
    const day = retentionCoversFrom(h.ctx.config, Date.now());
    // Mexico City keeps no daylight saving time: the day after the cutoff's.
    expect(day).toBe(formatLocalDate(Date.now() - 29 * DAY));
    expect((await generate(a.apikey)).body).toMatchObject({ code: 'report_04', covers_from: day });
    const margins = await runCommands(
      h.ctx,
      [marginCommands],
      ['reports', 'margins', '--from', day!, '--to', day!, '--json'],
    );
    expect(margins).toMatchObject({ covers_from: day, rows: [] });
    expect(retentionCoversFrom({ MESSAGES_KEEP_DAYS: 0 }, Date.now())).toBeNull();
  });

  it('prunes audit entries older than AUDIT_KEEP_DAYS, in batches', async () => {
    const entry = (at: number, action: string) => ({
      at,
      actor: 'cli',
      action,
      target: null,
      detail: '{}',
      address: null,
    });
    await db()
      .insertInto('audit_log')
      .values([
        ...Array.from({ length: 5 }, (_, i) => entry(Date.now() - 100 * DAY + i, 'retention.old')),
        entry(Date.now() - 80 * DAY, 'retention.kept'),
      ])
      .execute();
    expect(await pruneAuditLog(h.ctx, Date.now(), 2)).toBe(5);
    const left = await db().selectFrom('audit_log').select('action').where('action', 'like', 'retention.%').execute();
    expect(left.map((r) => r.action)).toEqual(['retention.kept']);
  });
});
