import { parseLocal } from '../src/lib/time.js';
import { reportPageQuery } from '../src/features/reports/store.js';
import { streamReport } from './reports.js';
import { benchPostgresUrl, fmt, pgClient, startBenchService } from './lib.js';

const MESSAGES = Number(process.env.BENCH_PG_REPORT_MESSAGES ?? 200_000);
const PER_CAMPAIGN = 500;
const DAY = '2026-01-15';
const ROUNDS = 3;

/**
 * POST /reports/generate over 200,000 messages of one day on PostgreSQL,
 * against the raw query of the same rows (node-postgres, one query) in the
 * same run, in interleaved rounds. First right after the bulk load, before any
 * statistics exist (autovacuum is off on the bench's tables, so none appear
 * mid-run): the case where a page sorted every remaining row of the period.
 * Then again after ANALYZE.
 */
export async function benchReportsPostgres(): Promise<string> {
  const title = `## Reports on PostgreSQL: /reports/generate over ${fmt(MESSAGES)} messages`;
  const url = benchPostgresUrl();
  if (!url)
    return `${title}\n\nSkipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL to a PostgreSQL server (postgres://…).\n`;
  const svc = await startBenchService({ REPORTS_PER_MINUTE: '1000' }, 1_000_000_000, { postgresUrl: url });
  const raw = await pgClient(url, svc.pgSchema!);
  try {
    await raw.query(
      'ALTER TABLE messages SET (autovacuum_enabled = false); ALTER TABLE campaigns SET (autovacuum_enabled = false)',
    );
    const fillMs = await fill(raw, svc.accountId);
    const from = parseLocal(DAY)!;
    const q = { accountId: svc.accountId, sandbox: 0 as const, from, to: from + 86_400_000 };
    const rawQuery = async () => {
      const t0 = performance.now();
      const { rows } = await raw.query(RAW_QUERY, [svc.accountId, q.from, q.to]);
      if (rows.length !== MESSAGES) throw new Error(`raw query returned ${rows.length} rows`);
      return performance.now() - t0;
    };
    const report = async () => {
      const t0 = performance.now();
      const { rows } = await streamReport(svc.base, svc.apikey, DAY);
      if (rows !== MESSAGES) throw new Error(`report returned ${rows} rows, expected ${MESSAGES}`);
      return performance.now() - t0;
    };
    // The plan of a page in the middle of the period, as the service runs it.
    const page = reportPageQuery(
      svc.service.ctx.db.kysely,
      q,
      { createdAt: from + 12 * 3_600_000, id: MESSAGES / 2 },
      5000,
    ).compile();
    const plan = async () => {
      const { rows } = await raw.query(`EXPLAIN ${page.sql}`, page.parameters as unknown[]);
      return rows
        .map((r: Record<string, string>) => r['QUERY PLAN'].trim().replace(/\s*\(cost=[^)]*\)/, ''))
        .filter((l: string) => !l.startsWith('Cache') && !l.startsWith('Hits'))
        .join('; ');
    };
    const measure = async () => {
      const rawMs: number[] = [];
      const httpMs: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        rawMs.push(await rawQuery());
        httpMs.push(await report());
      }
      return { raw: median(rawMs), http: median(httpMs), plan: await plan() };
    };
    const cold = await measure();
    await raw.query('ANALYZE messages; ANALYZE campaigns');
    const analyzed = await measure();
    const row = (name: string, m: typeof cold) =>
      `| ${name} | ${fmt(m.raw / 1000, 2)} | ${fmt(m.http / 1000, 2)} | **${fmt(m.http / m.raw, 2)}×** |`;
    return [
      title,
      '',
      `${fmt(MESSAGES)} messages of one account on one day, bulk-loaded by one INSERT … SELECT in ${fmt(fillMs / 1000, 1)} s. Pages of 5,000 rows by keyset on (created_at, id). Medians of ${ROUNDS} interleaved rounds (raw query, then report). The raw query is node-postgres reading the same rows in one query; the report is one HTTP request whose response is read as a stream and discarded.`,
      '',
      '| statistics | raw query s (baseline) | /reports/generate s | ratio (target ≤ 1.5×) |',
      '|---|---:|---:|---:|',
      row('none (right after the bulk load, no ANALYZE)', cold),
      row('after ANALYZE', analyzed),
      '',
      `Plan of a page mid-period without statistics: \`${cold.plan}\`.`,
      '',
      `After ANALYZE: \`${analyzed.plan}\`.`,
      '',
    ].join('\n');
  } finally {
    await raw.end();
    await svc.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The rows of the report, as the report's store reads them, in one query. */
const RAW_QUERY = `SELECT m.id, m.created_at, c.name, c.source, m.reference, m.number, m.text, m.sent_at, m.status, m.dlr_code, m.carrier, m.channel
  FROM messages m JOIN campaigns c ON c.id = m.campaign_id
  WHERE m.account_id = $1 AND m.sandbox = 0 AND m.created_at >= $2 AND m.created_at < $3
  ORDER BY m.created_at, m.id`;

/** Setup: campaigns of 500 and their messages spread over the day, most delivered, some failed, some pending (as the SQLite section). */
async function fill(db: Awaited<ReturnType<typeof pgClient>>, accountId: number): Promise<number> {
  const t0 = performance.now();
  const start = parseLocal(`${DAY} 01:00:00`)!;
  const step = Math.floor((22 * 3_600_000) / MESSAGES) || 1;
  const campaigns = Math.ceil(MESSAGES / PER_CAMPAIGN);
  const { rows } = await db.query(
    `INSERT INTO campaigns (account_id, name, channel, source, sandbox, total, created_at)
     SELECT $1, 'Campaña ' || (g + 1), 'sms', 'sms', 0, $2, $3::bigint + g * $2 * $4::bigint FROM generate_series(0, $5::int - 1) g RETURNING id`,
    [accountId, PER_CAMPAIGN, start, step, campaigns],
  );
  const first = Math.min(...rows.map((r: { id: number }) => Number(r.id)));
  await db.query(
    `INSERT INTO messages (account_id, campaign_id, reference, channel, country_code, number, text, flash, sandbox, price_units, stage, status, dlr_code, carrier, created_at, sent_at, dlr_at)
     SELECT $1, $2::bigint + i / $3, 'R' || lpad(i::text, 12, '0'), 'sms', '52', '5255' || (10000000 + i % 90000000), 'Hola cliente ' || i || ', tu pedido está en camino. Gracias por tu compra.', 0, 0, 10000,
       CASE i % 20 WHEN 0 THEN 0 WHEN 1 THEN 1 ELSE 2 END,
       CASE i % 20 WHEN 0 THEN 'queued' WHEN 1 THEN 'sent' WHEN 2 THEN 'undelivered' ELSE 'delivered' END,
       CASE i % 20 WHEN 0 THEN NULL WHEN 1 THEN NULL WHEN 2 THEN i % 13 ELSE 0 END,
       CASE i % 20 WHEN 0 THEN NULL ELSE 'simulator' END,
       t, CASE i % 20 WHEN 0 THEN NULL ELSE t + 500 END, CASE WHEN i % 20 < 2 THEN NULL ELSE t + 1500 END
     FROM (SELECT i, $4::bigint + i * $5::bigint AS t FROM generate_series(0, $6::int - 1) i) s`,
    [accountId, first, PER_CAMPAIGN, start, step, MESSAGES],
  );
  return performance.now() - t0;
}
