import { afterAll, beforeAll, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { reportPage, reportPageQuery, type ReportQuery } from './store.js';

const ROWS = 3000;

describeEngines('report pages follow the (account_id, created_at, id) index', (engine) => {
  let h: Harness;
  let q: ReportQuery;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    const db = h.ctx.db.kysely;
    // No statistics until the test asks for them: the state right after a bulk load.
    if (engine === 'postgres') await sql`ALTER TABLE messages SET (autovacuum_enabled = false)`.execute(db);
    const a = await h.createAccount(100);
    const { id: campaignId } = await db
      .insertInto('campaigns')
      .values({
        account_id: a.id,
        name: 'bulk',
        channel: 'sms',
        source: 'sms',
        sandbox: 0,
        total: ROWS,
        created_at: 1_000,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    // Ten messages per millisecond, inserted out of time order: pages must break ties by id.
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      account_id: a.id,
      campaign_id: campaignId,
      reference: `bulk-${i}`,
      channel: 'sms' as const,
      country_code: '52',
      number: `5255${String(10_000_000 + i)}`,
      text: 'Hola',
      flash: 0,
      sandbox: 0,
      price_units: 1,
      status: 'queued' as const,
      created_at: 1_000 + Math.floor(((i * 7) % ROWS) / 10),
    }));
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto('messages')
        .values(rows.slice(i, i + 500))
        .execute();
    q = { accountId: a.id, sandbox: 0, from: 0, to: 10_000 };
  });
  afterAll(() => h.close());

  /** The plan of a page in the middle of the period, as one line of text. */
  async function plan(): Promise<string> {
    const page = reportPageQuery(h.ctx.db.kysely, q, { createdAt: 1_150, id: 1 }, 500).compile();
    const explain = engine === 'postgres' ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN';
    const { rows } = await h.ctx.db.kysely.executeQuery<Record<string, string>>(
      CompiledQuery.raw(`${explain} ${page.sql}`, [...page.parameters]),
    );
    return rows.map((r) => r['QUERY PLAN'] ?? r.detail).join('\n');
  }

  it('reads a page in index order, with no sort, before any statistics and after ANALYZE', async () => {
    for (const analyzed of [false, true]) {
      if (analyzed) await sql`ANALYZE`.execute(h.ctx.db.kysely);
      const text = await plan();
      expect(text).toContain('messages_account_created_id');
      expect(text).not.toMatch(/Sort|TEMP B-TREE/);
    }
  });

  it('pages through every row once, in (created_at, id) order, ties across page boundaries included', async () => {
    const seen: Array<{ id: number; created_at: number }> = [];
    let cursor = null;
    for (;;) {
      const page = await reportPage(h.ctx.db.kysely, q, cursor, 7);
      seen.push(...page);
      if (page.length < 7) break;
      cursor = { createdAt: page[6].created_at, id: page[6].id };
    }
    const expected = [...seen].sort((x, y) => x.created_at - y.created_at || x.id - y.id);
    expect(seen.length).toBe(ROWS);
    expect(new Set(seen.map((r) => r.id)).size).toBe(ROWS);
    expect(seen).toEqual(expected);
  });
});
