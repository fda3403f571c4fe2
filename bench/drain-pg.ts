import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/app/serve.js';
import { insertAccount } from '../src/accounts/store.js';
import { toUnits } from '../src/accounts/credits.js';
import { openDatabase } from '../src/db/engine.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { timeOrderedId } from '../src/lib/ids.js';
import { writeMessages as submitMessages } from '../src/messaging/write.js';
import { benchPostgresUrl, dropSchema, fmt, pgClient } from './lib.js';

export const DRAIN_CAMPAIGNS = 100;
export const DRAIN_RECIPIENTS = 500;
const CAMPAIGNS = DRAIN_CAMPAIGNS;
const RECIPIENTS = DRAIN_RECIPIENTS;
const TOTAL = CAMPAIGNS * RECIPIENTS;
const ROUNDS = Number(process.env.BENCH_DRAIN_PG_ROUNDS ?? 3);
const numbers = Array.from({ length: RECIPIENTS }, (_, i) => String(5510000000 + i));
const TEXT = 'Hola';

/**
 * The simulator draining 50,000 queued messages on PostgreSQL (dispatch,
 * carrier report job, status update and confirmation event, as the SQLite
 * section 10(b)), against a raw node-postgres loop inserting the same number of
 * message rows, 500 per statement, into the same schema, in interleaved rounds.
 * Also counts the statements the drain sends and how many of its updates of
 * messages rows were HOT (no index entries written).
 */
export async function benchDrainPostgres(): Promise<string> {
  const title = '## Simulator drain on PostgreSQL vs a raw insert loop';
  const url = benchPostgresUrl();
  if (!url)
    return `${title}\n\nSkipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL to a PostgreSQL server (postgres://…).\n`;
  const rounds: Array<{ raw: number; drain: Drain }> = [];
  for (let i = 0; i < ROUNDS; i++)
    rounds.push({ raw: await rawInsertRowsPerSecond(url), drain: await drainOnPostgres(url) });
  const ratios = rounds.map((r) => r.drain.perSecond / r.raw);
  const mid = rounds.map((r, i) => ({ ...r, ratio: ratios[i] })).sort((a, b) => a.ratio - b.ratio)[
    Math.floor(rounds.length / 2)
  ];
  return [
    title,
    '',
    `${fmt(TOTAL)} queued messages (${CAMPAIGNS} campaigns of ${RECIPIENTS}) drained by the worker to a final status, SIMULATOR_DLR_DELAY_MS=0, default pacing. Baseline: node-postgres inserting ${fmt(TOTAL)} message rows, ${RECIPIENTS} per INSERT, into a fresh schema. ${ROUNDS} interleaved rounds (baseline, then drain), each on fresh schemas; the median round by ratio is shown.`,
    '',
    '| round | raw inserts rows/s | drain messages/s | ratio |',
    '|---|---:|---:|---:|',
    ...rounds.map((r, i) => `| ${i + 1} | ${fmt(r.raw)} | ${fmt(r.drain.perSecond)} | ${fmt(ratios[i], 2)} |`),
    '',
    `Drain ÷ raw insert loop: **${fmt(mid.ratio, 2)}** (median round). Per message: ${fmt(mid.drain.statements / TOTAL, 3)} statements; messages rows updated ${fmt(mid.drain.updates / TOTAL, 2)} times, ${fmt((100 * mid.drain.hot) / Math.max(mid.drain.updates, 1))} % of those updates HOT.`,
    '',
  ].join('\n');
}

interface Drain {
  perSecond: number;
  statements: number;
  updates: number;
  hot: number;
}

/** The worker draining the queued campaigns to a final status on a fresh schema of `url`. */
export async function drainOnPostgres(url: string): Promise<Drain> {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-bench-drain-pg-'));
  const pgSchema = `bench_${randomBytes(6).toString('hex')}`;
  const config = loadConfig({
    DATABASE_URL: url,
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    SIMULATOR_DLR_DELAY_MS: '0',
    WORKER_POLL_MS: '20',
  } as NodeJS.ProcessEnv);
  const service = await startService(config, {
    log: pino({ level: 'silent' }),
    listen: false,
    worker: false,
    pgSchema,
  });
  const stats = await pgClient(url, pgSchema);
  try {
    const ctx = service.ctx;
    const { account } = await insertAccount(ctx.db.kysely, ctx.secrets.keyEncryption, {
      email: 'drain@example.com',
      passwordHash: 'x',
      credits: toUnits(1_000_000),
    });
    for (let c = 0; c < CAMPAIGNS; c++) {
      await ctx.db.kysely.transaction().execute((trx) =>
        submitMessages(trx, ctx, {
          accountId: account.id,
          channel: 'sms',
          source: 'sms',
          text: TEXT,
          recipients: numbers.map((n) => ({ countryCode: '52', number: `52${n}` })),
        }),
      );
    }
    const pending = async () =>
      Number((await stats.query('SELECT count(*) AS n FROM messages WHERE stage < 2')).rows[0].n);
    const updates = async () => {
      const { rows } = await stats.query(
        "SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'messages'",
        [pgSchema],
      );
      return { upd: Number(rows[0].upd), hot: Number(rows[0].hot) };
    };
    const before = await updates();
    const counted = countStatements();
    const t0 = performance.now();
    ctx.worker.start();
    while ((await pending()) > 0) {
      if (performance.now() - t0 > 300_000) throw new Error('drain did not finish in 300 s');
      await new Promise((r) => setTimeout(r, 25));
    }
    const seconds = (performance.now() - t0) / 1000;
    const statements = counted.stop();
    // The statistics collector reports with a short delay.
    await new Promise((r) => setTimeout(r, 1000));
    const after = await updates();
    return { perSecond: TOTAL / seconds, statements, updates: after.upd - before.upd, hot: after.hot - before.hot };
  } finally {
    await stats.end();
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
    await dropSchema(url, pgSchema);
  }
}

/**
 * Counts the statements every node-postgres client of this process sends
 * until stop() (the bench's own polling excluded). With BENCH_DRAIN_PG_TRACE=1
 * it also prints, per statement shape, the count and the total time from send
 * to answer: where the drain waits.
 */
function countStatements(): { stop(): number } {
  const original = pg.Client.prototype.query;
  const trace = new Map<string, { n: number; ms: number }>();
  let n = 0;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : '';
    if (text.includes('pg_stat_user_tables') || text.startsWith('SELECT count(*) AS n FROM messages'))
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    n++;
    const t0 = performance.now();
    const result = (original as (...a: unknown[]) => unknown).apply(this, args);
    if (process.env.BENCH_DRAIN_PG_TRACE && result instanceof Promise) {
      const shape = text.replace(/\$\d+(, )?/g, '').slice(0, 90);
      void result
        .finally(() => {
          const t = trace.get(shape) ?? { n: 0, ms: 0 };
          trace.set(shape, { n: t.n + 1, ms: t.ms + performance.now() - t0 });
        })
        .catch(() => {});
    }
    return result;
  } as typeof original;
  return {
    stop() {
      pg.Client.prototype.query = original;
      for (const [shape, t] of [...trace].sort((a, b) => b[1].ms - a[1].ms).slice(0, 15))
        process.stderr.write(`${String(t.n).padStart(6)} ${t.ms.toFixed(0).padStart(7)} ms  ${shape}\n`);
      return n;
    },
  };
}

/** The same message rows submission writes, inserted 500 per multi-row INSERT into a freshly migrated schema. */
async function rawInsertRowsPerSecond(url: string): Promise<number> {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const db = await openDatabase(url, { pgSchema: schema });
  await migrateToLatest(db);
  await db.close();
  const client = await pgClient(url, schema);
  try {
    // The baseline stays the same table whatever storage parameters the service's schema sets.
    await client.query('ALTER TABLE messages SET (fillfactor = 100)');
    const cols = [
      'account_id',
      'campaign_id',
      'reference',
      'channel',
      'country_code',
      'number',
      'text',
      'price_units',
      'stage',
      'status',
      'created_at',
    ];
    const placeholders = numbers
      .map((_, r) => `(${cols.map((_, c) => `$${r * cols.length + c + 1}`).join(',')})`)
      .join(',');
    const insert = `INSERT INTO messages (${cols.join(',')}) VALUES ${placeholders}`;
    const t0 = performance.now();
    for (let c = 0; c < CAMPAIGNS; c++) {
      const now = Date.now();
      await client.query(
        insert,
        numbers.flatMap((n) => [1, c + 1, timeOrderedId(), 'sms', '52', `52${n}`, TEXT, 10_000, 0, 'queued', now]),
      );
    }
    return TOTAL / ((performance.now() - t0) / 1000);
  } finally {
    await client.end();
    await dropSchema(url, schema);
  }
}
