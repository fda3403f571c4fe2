import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { startService, type RunningService } from '../src/app/serve.js';
import { insertAccount } from '../src/accounts/store.js';
import { toUnits } from '../src/accounts/credits.js';

export interface LoadResult {
  requestsPerSecond: number;
  /** 2xx answers over the whole run. */
  ok?: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

const autocannonBin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

/**
 * Runs autocannon in its own process (so the load generator does not share
 * the server's event loop) and returns mean requests/s and latencies.
 */
export async function load(opts: {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  durationSec?: number;
}): Promise<LoadResult> {
  const args = [
    autocannonBin,
    '--json',
    '-c',
    String(opts.connections ?? 50),
    '-d',
    String(opts.durationSec ?? 8),
    '-m',
    opts.method ?? 'POST',
  ];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (opts.body !== undefined) args.push('-b', opts.body);
  args.push(opts.url);
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }, (err, out) => (err ? reject(err) : resolve(out))),
  );
  const result = JSON.parse(stdout);
  return {
    requestsPerSecond: result.requests.average,
    ok: result['2xx'],
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

export interface BenchService {
  service: RunningService;
  base: string;
  apikey: string;
  accountId: number;
  /** The PostgreSQL schema of the service's tables, when it runs on PostgreSQL. */
  pgSchema?: string;
  close(): Promise<void>;
}

/**
 * The PostgreSQL server the PostgreSQL sections use: BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL (the tests' server). Undefined when neither is set: those
 * sections are then skipped with a note.
 */
export function benchPostgresUrl(): string | undefined {
  const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  return url && /^postgres(ql)?:\/\//.test(url) ? url : undefined;
}

export interface BenchServiceOptions {
  /** Run on this PostgreSQL server, in a schema of its own dropped on close; default a fresh SQLite file. */
  postgresUrl?: string;
}

/** A real `mensajero serve` (in this process) on a fresh SQLite file or PostgreSQL schema, with one funded account. */
export async function startBenchService(
  env: Record<string, string> = {},
  credits = 1_000_000_000,
  opts: BenchServiceOptions = {},
): Promise<BenchService> {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-bench-'));
  const pgSchema = opts.postgresUrl ? `bench_${randomBytes(6).toString('hex')}` : undefined;
  const config = loadConfig({
    DATABASE_URL: opts.postgresUrl ?? `sqlite:${join(dir, 'bench.db')}`,
    DATA_DIR: dir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_SECOND: '1000000',
    ...env,
  } as NodeJS.ProcessEnv);
  const service = await startService(config, { log: pino({ level: 'silent' }), pgSchema });
  const address = service.app.server.address();
  const port = address && typeof address === 'object' ? address.port : 0;
  config.publicBaseUrl = `http://127.0.0.1:${port}`;
  const { account, apikey } = await insertAccount(service.ctx.db.kysely, service.ctx.secrets.keyEncryption, {
    email: 'bench@example.com',
    passwordHash: 'scrypt$unused',
    credits: toUnits(credits),
  });
  return {
    service,
    base: config.publicBaseUrl,
    apikey,
    accountId: account.id,
    pgSchema,
    async close() {
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
      if (opts.postgresUrl && pgSchema) await dropSchema(opts.postgresUrl, pgSchema);
    },
  };
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Peak RSS sampled every 10 ms while `fn` runs, as growth over the RSS at the start (MB). */
export async function peakRssGrowth<T>(fn: () => Promise<T>): Promise<{ value: T; peakMb: number; ms: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const t0 = performance.now();
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, peakMb: (peak - start) / 1_048_576, ms: performance.now() - t0 };
  } finally {
    clearInterval(timer);
  }
}

/** A PostgreSQL client on `url` whose tables are those of `schema`. */
export async function pgClient(url: string, schema: string) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  return client;
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = await pgClient(url, 'public');
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
