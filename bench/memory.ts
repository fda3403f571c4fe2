import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { benchPostgresUrl, fmt } from './lib.js';

const MAIN = resolve(import.meta.dirname, '../src/app/main.js');
const HEAP_PROBE = pathToFileURL(resolve(import.meta.dirname, 'heap-probe.js')).href;
const BATCHES = 3;
const SINGLES = Number(process.env.BENCH_MEMORY_SINGLES ?? 10_000);
const CAMPAIGN = 500;
const PER_BATCH = 100_000;
const CONNECTIONS = 50;

/**
 * Memory of `mensajero serve` (its own process, RSS from /proc): idle, then
 * after each of three batches of 100,000 messages sent and delivered by the
 * simulator (each batch: single-recipient requests and 500-recipient ones),
 * on SQLite and on PostgreSQL. No growth between the second and third batch
 * is the target: caches and queues stay bounded. The JS heap in use after a
 * full collection (bench/heap-probe.ts) tells growth of the heap from garbage
 * not yet collected; RSS less that heap is mostly native (SQLite, buffers).
 */
export async function benchMemory(): Promise<string> {
  const rows = [await memoryOf('SQLite')];
  const url = benchPostgresUrl();
  if (url) rows.push(await memoryOf('PostgreSQL', url));
  const mb = (bytes: number) => fmt(bytes / 1_048_576, 0);
  return [
    '## Memory of `mensajero serve` over 300,000 messages',
    '',
    `RSS of the serve process (VmRSS), idle 2 s after start, then after each batch of ${fmt(PER_BATCH)} messages once every one has its final status (simulator, SIMULATOR_DLR_DELAY_MS=0): ${fmt(SINGLES)} single-recipient POST /sms/send and ${fmt((PER_BATCH - SINGLES) / CAMPAIGN)} of ${CAMPAIGN} recipients, ${CONNECTIONS} connections.`,
    '',
    'The JS heap is `heapUsed` after a full garbage collection at the same points.',
    '',
    '| engine | MB | idle | after 100,000 | after 200,000 | after 300,000 | 3rd ÷ 2nd |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows.flatMap((r) =>
      (['RSS', 'JS heap'] as const).map((what) => {
        const v = what === 'RSS' ? r.rss : r.heap;
        return `| ${r.engine} | ${what} | ${v.map(mb).join(' | ')} | ${fmt(v[3] / v[2], 2)} |`;
      }),
    ),
    '',
  ].join('\n');
}

async function memoryOf(engine: string, pgUrl?: string): Promise<{ engine: string; rss: number[]; heap: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-bench-memory-'));
  const database = pgUrl ? `bench_mem_${randomBytes(6).toString('hex')}` : undefined;
  const url = pgUrl && database ? withDatabase(pgUrl, database) : `sqlite:${join(dir, 'memory.db')}`;
  if (pgUrl && database) await admin(pgUrl, `CREATE DATABASE ${database}`);
  const env = {
    ...process.env,
    DATABASE_URL: url,
    DATA_DIR: dir,
    LOG_LEVEL: 'warn',
    SIMULATOR_DLR_DELAY_MS: '0',
    RATE_LIMIT_PER_SECOND: '1000000',
    MEMORY_BENCH_HEAP_FILE: join(dir, 'heap'),
  };
  let child: ChildProcess | undefined;
  try {
    cli(['migrate'], env);
    const { apikey } = JSON.parse(
      cli(
        [
          'accounts',
          'create',
          '--email',
          'memory@example.com',
          '--password',
          'secret123',
          '--credits',
          '100000000',
          '--json',
        ],
        env,
      ),
    ) as { apikey: string };
    const serve = await startServe(env);
    child = serve.child;
    const open = openCounter(url);
    try {
      await new Promise((r) => setTimeout(r, 2000));
      const rss = [rssOf(child.pid!)];
      const heap = [await heapAfterGc(child, env.MEMORY_BENCH_HEAP_FILE)];
      for (let b = 0; b < BATCHES; b++) {
        await sendBatch(serve.base, apikey, b);
        await until(async () => (await open.count()) === 0);
        await new Promise((r) => setTimeout(r, 2000));
        rss.push(rssOf(child.pid!));
        heap.push(await heapAfterGc(child, env.MEMORY_BENCH_HEAP_FILE));
      }
      return { engine, rss, heap };
    } finally {
      await open.close();
    }
  } finally {
    child?.kill('SIGTERM');
    if (child && child.exitCode === null) await new Promise((r) => child!.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
    if (pgUrl && database) await admin(pgUrl, `DROP DATABASE IF EXISTS ${database}`);
  }
}

function cli(args: string[], env: NodeJS.ProcessEnv): string {
  const r = spawnSync(process.execPath, [MAIN, ...args], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`memory bench: mensajero ${args[0]} failed: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

async function startServe(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, ['--import', HEAP_PROBE, MAIN, 'serve'], {
    env: { ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let log = '';
  const port = await new Promise<number>((resolvePort, reject) => {
    child.stdout!.on('data', (d) => {
      log += d;
      const m = /"port":(\d+)[^\n]*mensajero is serving|mensajero is serving[^\n]*"port":(\d+)/.exec(log);
      if (m) resolvePort(Number(m[1] ?? m[2]));
    });
    child.once('exit', () => reject(new Error(`mensajero serve exited:\n${log}`)));
  });
  child.stdout!.resume();
  return { child, base: `http://127.0.0.1:${port}` };
}

/** One batch: the single-recipient requests, then the 500-recipient ones, CONNECTIONS at a time. */
async function sendBatch(base: string, apikey: string, batch: number): Promise<void> {
  const campaigns = (PER_BATCH - SINGLES) / CAMPAIGN;
  const bodies = (i: number) => {
    if (i < SINGLES) return { numbers: String(5510000000 + batch * SINGLES + i), message: 'Hola' };
    const first = 5520000000 + (i - SINGLES) * CAMPAIGN;
    return { numbers: Array.from({ length: CAMPAIGN }, (_, k) => String(first + k)).join(','), message: 'Hola' };
  };
  let next = 0;
  const total = SINGLES + campaigns;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < total) {
        const body = bodies(next++);
        const r = await fetch(`${base}/sms/send`, {
          method: 'POST',
          headers: { apikey, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        if (r.status !== 200) throw new Error(`memory bench: /sms/send answered ${r.status}: ${await r.text()}`);
        await r.arrayBuffer();
      }
    }),
  );
}

/** Messages not yet final, read from the service's database. */
function openCounter(url: string): { count(): Promise<number>; close(): Promise<void> } {
  if (url.startsWith('sqlite:')) {
    const db = new SQLite(url.slice('sqlite:'.length), { readonly: true });
    const stmt = db.prepare('select count(*) as n from messages where stage < 2');
    return {
      count: async () => Number((stmt.get() as { n: number }).n),
      close: async () => void db.close(),
    };
  }
  const client = new pg.Client({ connectionString: url });
  const connected = client.connect();
  return {
    count: async () => {
      await connected;
      return Number((await client.query('select count(*) as n from messages where stage < 2')).rows[0].n);
    },
    close: () => client.end(),
  };
}

/** The serve process's JS heap in use after a full collection, which it runs on SIGUSR2 (bench/heap-probe.ts). */
async function heapAfterGc(child: ChildProcess, file: string): Promise<number> {
  rmSync(file, { force: true });
  child.kill('SIGUSR2');
  await until(async () => existsSync(file) && readFileSync(file, 'utf8') !== '');
  return Number(readFileSync(file, 'utf8'));
}

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

async function until(done: () => Promise<boolean>): Promise<void> {
  const limit = performance.now() + 600_000;
  while (!(await done())) {
    if (performance.now() > limit) throw new Error('memory bench: messages not delivered in 600 s');
    await new Promise((r) => setTimeout(r, 200));
  }
}
