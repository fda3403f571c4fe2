import { request } from 'node:http';
import SQLite from 'better-sqlite3';
import { parseLocal } from '../src/lib/time.js';
import { fmt, peakRssGrowth, startBenchService } from './lib.js';

const MESSAGES = Number(process.env.BENCH_REPORT_MESSAGES ?? 1_000_000);
const PER_CAMPAIGN = 500;
const DAY = '2026-01-15';

/**
 * POST /reports/generate over a million messages of one day (SQLite),
 * streamed to a client that counts the rows and keeps nothing, against the
 * raw better-sqlite3 query of the same rows in the same run. The server runs
 * in this process, so the peak RSS growth covers server and client.
 */
export async function benchReports(): Promise<string> {
  const svc = await startBenchService({ REPORTS_PER_MINUTE: '1000' });
  const file = svc.service.ctx.config.DATABASE_URL.slice('sqlite:'.length);
  const raw = new SQLite(file);
  try {
    const fillMs = fill(raw, svc.accountId);
    const from = parseLocal(DAY)!;
    const plan = raw
      .prepare(`EXPLAIN QUERY PLAN ${RAW_QUERY}`)
      .all(svc.accountId, from, from + 86_400_000)
      .map((r) => (r as { detail: string }).detail)
      .join('; ');

    const http = await peakRssGrowth(() => streamReport(svc.base, svc.apikey));
    if (http.value.rows !== MESSAGES) throw new Error(`report returned ${http.value.rows} rows, expected ${MESSAGES}`);

    const rawRun = await peakRssGrowth(async () => {
      let rows = 0;
      for (const _row of raw.prepare(RAW_QUERY).iterate(svc.accountId, from, from + 86_400_000)) rows++;
      return rows;
    });
    if (rawRun.value !== MESSAGES) throw new Error(`raw query returned ${rawRun.value} rows`);

    const ratio = http.ms / rawRun.ms;
    return [
      `## Reports: /reports/generate over ${fmt(MESSAGES)} messages (SQLite)`,
      '',
      `${fmt(MESSAGES)} messages of one account on one day (inserted directly in ${fmt(fillMs / 1000, 1)} s), one request, the response read as a stream and discarded. Pages of 5,000 rows by keyset on (created_at, id). Query plan: \`${plan}\`.`,
      '',
      '| run | time s | rows/s | peak RSS growth MB |',
      '|---|---:|---:|---:|',
      `| raw better-sqlite3 query of the same rows (iterate, baseline; run second, so its growth hides in the first run's) | ${fmt(rawRun.ms / 1000, 2)} | ${fmt(MESSAGES / (rawRun.ms / 1000))} | ${fmt(rawRun.peakMb)} |`,
      `| POST /reports/generate over HTTP (${fmt(http.value.bytes / 1_048_576)} MB of JSON) | ${fmt(http.ms / 1000, 2)} | ${fmt(MESSAGES / (http.ms / 1000))} | ${fmt(http.peakMb)} |`,
      '',
      `Time ratio /reports/generate ÷ raw query: **${fmt(ratio, 1)}×**. Peak memory growth: **${fmt(http.peakMb)} MB** (target ≤ ~100 MB).`,
      '',
    ].join('\n');
  } finally {
    raw.close();
    await svc.close();
  }
}

/** The rows of the report, as the report's store reads them, in one query. */
const RAW_QUERY = `SELECT m.id, m.created_at, c.name, c.source, m.reference, m.number, m.text, m.sent_at, m.status, m.dlr_code, m.carrier, m.channel
  FROM messages m JOIN campaigns c ON c.id = m.campaign_id
  WHERE m.account_id = ? AND m.sandbox = 0 AND m.created_at >= ? AND m.created_at < ?
  ORDER BY m.created_at, m.id`;

/** Setup: campaigns of 500 and their messages, spread over the day, most delivered, some failed, some pending. */
function fill(db: SQLite.Database, accountId: number): number {
  const t0 = performance.now();
  const start = parseLocal(`${DAY} 01:00:00`)!;
  const step = Math.floor((22 * 3_600_000) / MESSAGES) || 1;
  const campaign = db.prepare(
    "INSERT INTO campaigns (account_id, name, channel, source, sandbox, total, created_at) VALUES (?, ?, 'sms', 'sms', 0, ?, ?)",
  );
  const message = db.prepare(
    `INSERT INTO messages (account_id, campaign_id, reference, channel, country_code, number, text, sender, flash, sandbox, extra_params, meta, price_units, stage, status, dlr_code, carrier, carrier_id, error, scheduled_at, created_at, sent_at, dlr_at)
     VALUES (?, ?, ?, 'sms', '52', ?, ?, NULL, 0, 0, NULL, NULL, 10000, ?, ?, ?, ?, NULL, NULL, NULL, ?, ?, ?)`,
  );
  const batch = db.transaction((first: number, count: number) => {
    let campaignId = 0;
    for (let i = first; i < first + count; i++) {
      const at = start + i * step;
      if (i % PER_CAMPAIGN === 0)
        campaignId = Number(
          campaign.run(accountId, `Campaña ${i / PER_CAMPAIGN + 1}`, PER_CAMPAIGN, at).lastInsertRowid,
        );
      const kind = i % 20;
      const [stage, status, code, carrier, sentAt] =
        kind === 0
          ? [0, 'queued', null, null, null]
          : kind === 1
            ? [1, 'sent', null, 'simulator', at + 500]
            : kind === 2
              ? [2, 'undelivered', i % 13, 'simulator', at + 500]
              : [2, 'delivered', 0, 'simulator', at + 500];
      message.run(
        accountId,
        campaignId,
        `R${String(i).padStart(12, '0')}`,
        `5255${String(10_000_000 + (i % 90_000_000)).padStart(8, '0')}`,
        `Hola cliente ${i}, tu pedido está en camino. Gracias por tu compra.`,
        stage,
        status,
        code,
        carrier,
        at,
        sentAt,
        sentAt === null ? null : sentAt + 1000,
      );
    }
  });
  for (let i = 0; i < MESSAGES; i += 50_000) batch(i, Math.min(50_000, MESSAGES - i));
  db.exec('ANALYZE');
  return performance.now() - t0;
}

/** Reads the report as a stream, counting rows and bytes, keeping nothing. */
export function streamReport(base: string, apikey: string, day = DAY): Promise<{ rows: number; bytes: number }> {
  const body = JSON.stringify({ start_date: day, end_date: day });
  const marker = '"reference":';
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/reports/generate`,
      {
        method: 'POST',
        headers: { apikey, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}`));
        res.setEncoding('utf8');
        let rows = 0;
        let bytes = 0;
        let carry = '';
        let tail = '';
        res.on('data', (chunk: string) => {
          bytes += Buffer.byteLength(chunk);
          // A marker may straddle two chunks: search the last few characters of the previous one too.
          const text = carry + chunk;
          for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + marker.length)) rows++;
          carry = text.slice(-(marker.length - 1));
          tail = text.slice(-2);
        });
        res.on('end', () =>
          tail === ']}' ? resolve({ rows, bytes }) : reject(new Error('report ended before its closing ]}')),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
