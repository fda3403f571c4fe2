import { features } from '../src/app/features.js';
import { pruneOldMessages } from '../src/messaging/retention.js';
import { benchPostgresUrl, fmt, load, pgClient, startBenchService } from './lib.js';

const MESSAGES = Number(process.env.BENCH_RETENTION_MESSAGES ?? 100_000);
const PER_CAMPAIGN = 500;
const DAY = 86_400_000;
const SECONDS = 10;

/**
 * Retention on PostgreSQL: single-recipient POST /sms/send (10 connections) alone, then while a prune removes
 * BENCH_RETENTION_MESSAGES old final messages (40 days old, MESSAGES_KEEP_DAYS 30) in batches of 1,000. The sends'
 * p99 with and without the prune, and how long the prune took.
 */
export async function benchRetention(): Promise<string> {
  const title = `## Retention on PostgreSQL: pruning ${fmt(MESSAGES)} messages while single sends run`;
  const url = benchPostgresUrl();
  if (!url)
    return `${title}\n\nSkipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL to a PostgreSQL server (postgres://…).\n`;
  const svc = await startBenchService(
    {
      MESSAGES_KEEP_DAYS: '30',
      WORKER_CONCURRENCY: '0',
      // One number receives every send: the destination caps would refuse all but 20 an hour.
      DESTINATION_MAX_PER_NUMBER_HOUR: '0',
      DESTINATION_MAX_SAME_TEXT_HOUR: '0',
    },
    1_000_000_000,
    {
      postgresUrl: url,
    },
  );
  const raw = await pgClient(url, svc.pgSchema!);
  try {
    const t0 = performance.now();
    await fill(raw, svc.accountId);
    const fillS = (performance.now() - t0) / 1000;
    await raw.query('ANALYZE messages; ANALYZE campaigns');
    const sends = () =>
      load({
        url: `${svc.base}/sms/send`,
        headers: { apikey: svc.apikey, 'content-type': 'application/json' },
        body: JSON.stringify({ numbers: '5512345678', message: 'Tu pedido va en camino' }),
        connections: 10,
        durationSec: SECONDS,
      });
    const alone = await sends();
    const forget = features.flatMap((f) => (f.forgetMessages ? [f.forgetMessages] : []));
    const p0 = performance.now();
    let pruneS = 0;
    const pruning = pruneOldMessages(svc.service.ctx, Date.now(), forget).then((r) => {
      pruneS = (performance.now() - p0) / 1000;
      return r;
    });
    const during = await sends();
    const pruned = await pruning;
    for (const r of [alone, during])
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`/sms/send answered ${r.non2xx} non-2xx, ${r.errors} errors`);
    if (pruned.messages !== MESSAGES) throw new Error(`pruned ${pruned.messages} of ${MESSAGES}`);
    const row = (name: string, r: typeof alone) =>
      `| ${name} | ${fmt(r.requestsPerSecond)} | ${r.p50Ms} | ${r.p99Ms} |`;
    return [
      title,
      '',
      `${fmt(MESSAGES)} final messages 40 days old (campaigns of ${PER_CAMPAIGN}), bulk-loaded in ${fmt(fillS, 1)} s, MESSAGES_KEEP_DAYS 30. Single-recipient POST /sms/send, 10 connections, ${SECONDS} s, worker off; the second run starts the prune (1,000 messages a transaction, 50 ms between) with the load.`,
      '',
      '| sends | requests/s | p50 ms | p99 ms |',
      '|---|---:|---:|---:|',
      row('alone (baseline)', alone),
      row('while pruning', during),
      '',
      `Prune: ${fmt(pruned.messages)} messages (and ${fmt(pruned.message_rows)} other rows) in ${fmt(pruneS, 1)} s, ${fmt(pruned.messages / pruneS)} messages/s; p99 while pruning ÷ alone: **${fmt(during.p99Ms / alone.p99Ms, 2)}×** (target < 2×).`,
      '',
    ].join('\n');
  } finally {
    await raw.end();
    await svc.close();
  }
}

/** Old final messages of the bench's account, in campaigns of 500, 40 days old. */
async function fill(db: Awaited<ReturnType<typeof pgClient>>, accountId: number): Promise<void> {
  const start = Date.now() - 40 * DAY;
  const campaigns = Math.ceil(MESSAGES / PER_CAMPAIGN);
  const { rows } = await db.query(
    `INSERT INTO campaigns (account_id, name, channel, source, sandbox, total, created_at)
     SELECT $1, 'Campaña ' || (g + 1), 'sms', 'sms', 0, $2, $3::bigint + g FROM generate_series(0, $4::int - 1) g RETURNING id`,
    [accountId, PER_CAMPAIGN, start, campaigns],
  );
  const first = Math.min(...rows.map((r: { id: number }) => Number(r.id)));
  await db.query(
    `INSERT INTO messages (account_id, campaign_id, reference, channel, country_code, number, text, flash, sandbox, price_units, stage, status, dlr_code, carrier, created_at, sent_at, dlr_at)
     SELECT $1, $2::bigint + i / $3, 'old' || lpad(i::text, 12, '0'), 'sms', '52', '5255' || (10000000 + i), 'Hola cliente ' || i || ', tu pedido está en camino.', 0, 0, 10000,
       2, 'delivered', 0, 'simulator', $4::bigint + i, $4::bigint + i + 1000, $4::bigint + i + 5000
     FROM generate_series(0, $5::int - 1) i`,
    [accountId, first, PER_CAMPAIGN, start, MESSAGES],
  );
}
