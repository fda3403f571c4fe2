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
import { sendSms } from '../src/features/sms/service.js';
import { benchPostgresUrl, dropSchema, fmt, pgClient } from './lib.js';
import { drainOnPostgres, DRAIN_CAMPAIGNS, DRAIN_RECIPIENTS } from './drain-pg.js';
import { acceptCampaign, acceptSingles, deliver } from './pg-floor-writes.js';

const SINGLES = Number(process.env.BENCH_PG_FLOOR_SINGLES ?? 5_000);
const ROUNDS = Number(process.env.BENCH_PG_FLOOR_ROUNDS ?? 2);
/** Concurrent single-recipient senders (as 10(c)'s connections), and the group commit's batch for the floor. */
const SENDERS = 50;
/** Connections: the service's default pool (src/db/engine.ts) and the floor's. */
const POOL = 10;

/**
 * PostgreSQL against its floor: raw node-postgres performing the same durable
 * writes per message (bench/pg-floor-writes.ts: same transactions, rows and
 * indexes) as Mensajero's single sends and its drain, each on a fresh schema,
 * in interleaved rounds.
 */
export async function benchPgFloor(): Promise<string> {
  const title = '## PostgreSQL: single sends and drain vs the floor of their writes';
  const url = benchPostgresUrl();
  if (!url) return `${title}\n\nSkipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL.\n`;
  const rows: Array<{ floorSingles: number; singles: number; floorDrain: number; drain: number }> = [];
  for (let i = 0; i < ROUNDS; i++)
    rows.push({
      floorSingles: await floorSingles(url),
      singles: await ourSingles(url),
      floorDrain: await floorDrain(url),
      drain: (await drainOnPostgres(url)).perSecond,
    });
  const median = (f: (r: (typeof rows)[number]) => number) => {
    const v = rows.map(f).sort((a, b) => a - b);
    return v[Math.floor(v.length / 2)];
  };
  return [
    title,
    '',
    `Single sends: ${fmt(SINGLES)} single-recipient sends from ${SENDERS} concurrent callers in this process (sendSms, the service of POST /sms/send, worker on, simulator with SIMULATOR_DLR_DELAY_MS=0), counted until the last final status; the floor accepts the same requests ${SENDERS} per transaction (debit, campaign, message inserted claimed; no dispatch job) and hands each batch over with the writes of the hand-off, the sent status and the receipt. Drain: ${fmt(DRAIN_CAMPAIGNS * DRAIN_RECIPIENTS)} queued messages (${DRAIN_CAMPAIGNS} campaigns of ${DRAIN_RECIPIENTS}); the floor hands over and applies receipts one campaign per batch. Both sides use a pool of ${POOL} connections without pipelining (node-postgres sends one statement at a time per connection); ${ROUNDS} interleaved rounds.`,
    '',
    '| round | floor singles msg/s | Mensajero singles msg/s | ratio | floor drain msg/s | Mensajero drain msg/s | ratio |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r, i) =>
        `| ${i + 1} | ${fmt(r.floorSingles)} | ${fmt(r.singles)} | ${fmt(r.singles / r.floorSingles, 2)} | ${fmt(r.floorDrain)} | ${fmt(r.drain)} | ${fmt(r.drain / r.floorDrain, 2)} |`,
    ),
    '',
    `Single sends ÷ floor: **${fmt(
      median((r) => r.singles / r.floorSingles),
      2,
    )}**; drain ÷ floor: **${fmt(
      median((r) => r.drain / r.floorDrain),
      2,
    )}** (median rounds; target ≥ 0.5 each).`,
    '',
  ].join('\n');
}

/** A freshly migrated schema with one funded account, and a pool on it; `run` gets both. */
async function withFloorSchema<T>(url: string, run: (pool: pg.Pool, accountId: number) => Promise<T>): Promise<T> {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const db = await openDatabase(url, { pgSchema: schema });
  await migrateToLatest(db);
  await db.close();
  const setup = await pgClient(url, schema);
  const pool = new pg.Pool({ connectionString: url, max: POOL, options: `-c search_path=${schema}` });
  try {
    const account = await setup.query(
      `INSERT INTO accounts (email, password_hash, credits, created_at) VALUES ('floor@example.com', 'x', $1, $2) RETURNING id`,
      [toUnits(1_000_000_000), Date.now()],
    );
    return await run(pool, Number(account.rows[0].id));
  } finally {
    await setup.end();
    await pool.end();
    await dropSchema(url, schema);
  }
}

/** Runs `n` tasks with at most `concurrency` at once. */
async function inParallel(n: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

const number = (i: number) => `52${5510000000 + (i % 1_000_000)}`;

async function floorSingles(url: string): Promise<number> {
  return withFloorSchema(url, async (pool, accountId) => {
    const t0 = performance.now();
    await inParallel(Math.ceil(SINGLES / SENDERS), POOL, async (w) => {
      const numbers = Array.from({ length: SENDERS }, (_, k) => number(w * SENDERS + k));
      const accepted = await acceptSingles(pool, accountId, numbers);
      await deliver(
        pool,
        accepted.map((a) => a.messageId),
        true,
      );
    });
    return SINGLES / ((performance.now() - t0) / 1000);
  });
}

async function floorDrain(url: string): Promise<number> {
  return withFloorSchema(url, async (pool, accountId) => {
    const numbers = Array.from({ length: DRAIN_RECIPIENTS }, (_, i) => number(i));
    const campaigns: number[][] = [];
    for (let c = 0; c < DRAIN_CAMPAIGNS; c++) campaigns.push(await acceptCampaign(pool, accountId, numbers));
    const t0 = performance.now();
    await inParallel(campaigns.length, POOL, (c) => deliver(pool, campaigns[c]));
    return (DRAIN_CAMPAIGNS * DRAIN_RECIPIENTS) / ((performance.now() - t0) / 1000);
  });
}

async function ourSingles(url: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-bench-floor-'));
  const pgSchema = `bench_${randomBytes(6).toString('hex')}`;
  const config = loadConfig({
    DATABASE_URL: url,
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    SIMULATOR_DLR_DELAY_MS: '0',
    WORKER_POLL_MS: '20',
  } as NodeJS.ProcessEnv);
  const service = await startService(config, { log: pino({ level: 'silent' }), listen: false, pgSchema });
  const stats = await pgClient(url, pgSchema);
  try {
    const ctx = service.ctx;
    const { account } = await insertAccount(ctx.db.kysely, ctx.secrets.keyEncryption, {
      email: 'floor@example.com',
      passwordHash: 'x',
      credits: toUnits(1_000_000_000),
    });
    const t0 = performance.now();
    let sent = 0;
    await inParallel(SINGLES, SENDERS, async (i) => {
      await sendSms(ctx, account.id, {
        numbers: number(i).slice(2),
        message: 'Hola',
        country_code: '52',
        find_country_code: 0,
        sandbox: 0,
        channel: 1,
        flash: 0,
        shorten_url: 0,
      });
      sent++;
    });
    const limit = performance.now() + 120_000;
    const open = async () =>
      Number((await stats.query('SELECT count(*) AS n FROM messages WHERE stage < 2')).rows[0].n);
    while ((await open()) > 0) {
      if (performance.now() > limit) throw new Error('single sends did not reach a final status in 120 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    return sent / ((performance.now() - t0) / 1000);
  } finally {
    await stats.end();
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
    await dropSchema(url, pgSchema);
  }
}
