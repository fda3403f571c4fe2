import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { fmt, load } from './lib.js';

const MAIN = resolve(import.meta.dirname, '../src/app/main.js');
const ROUNDS = 3;
const DURATION_SEC = 5;
const CONNECTIONS = 32;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `mensajero serve` (one process) or `serve --workers 2`, started and answering; resolves with its base URL. */
async function startServe(env: NodeJS.ProcessEnv, workers: number): Promise<{ base: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [MAIN, 'serve', '--workers', String(workers)], {
    env: { ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let log = '';
  const base = await new Promise<string>((ok, fail) => {
    child.stdout!.on('data', (d) => {
      log += d;
      // A single process's line, or the primary's (with "workers") once every worker listens.
      const serving =
        workers === 1
          ? /"port":(\d+),"database"[^\n]*"msg":"mensajero is serving"/
          : /"port":(\d+),"workers":\d+,[^\n]*"msg":"mensajero is serving"/;
      const m = serving.exec(log);
      if (m) ok(`http://127.0.0.1:${m[1]}`);
    });
    child.once('exit', () => fail(new Error(`cluster bench: serve --workers ${workers} exited:\n${log}`)));
  });
  child.stdout!.resume();
  return { base, child };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/**
 * A fresh database of the engine with one funded account, created by the `mensajero` of `main` (this checkout's by
 * default, or another install's); the environment to serve it and its key.
 */
export async function prepare(
  engine: 'sqlite' | 'postgres',
  dir: string,
  main = MAIN,
): Promise<{ env: NodeJS.ProcessEnv; apikey: string; drop: () => Promise<void> }> {
  let url = `sqlite:${join(dir, 'cluster.db')}`;
  let drop: () => Promise<void> = async () => {};
  if (engine === 'postgres') {
    const admin = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL!;
    const schema = `bench_${randomBytes(5).toString('hex')}`;
    const run = async (sql: string) => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(sql).finally(() => c.end());
    };
    await run(`CREATE SCHEMA ${schema}`);
    const u = new URL(admin);
    u.searchParams.set('options', `-c search_path=${schema}`);
    url = u.toString();
    drop = () => run(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
  const env = {
    ...process.env,
    DATABASE_URL: url,
    DATA_DIR: dir,
    RATE_LIMIT_PER_SECOND: '1000000',
    SIMULATOR_DLR_DELAY_MS: '0',
    // Every request goes to one number: the destination caps would refuse all but the first few.
    DESTINATION_MAX_PER_NUMBER_HOUR: '0',
    DESTINATION_MAX_SAME_TEXT_HOUR: '0',
  };
  const r = spawnSync(
    process.execPath,
    [
      main,
      'accounts',
      'create',
      '--email',
      'bench@example.com',
      '--password',
      'bench-password-1',
      '--credits',
      '100000000',
      '--json',
    ],
    { env, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`bench: accounts create (${main}) failed: ${r.stderr}`);
  return { env, apikey: JSON.parse(r.stdout).apikey, drop };
}

async function benchEngine(engine: 'sqlite' | 'postgres'): Promise<{ rows: string[]; singleSends: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-bench-cluster-'));
  const { env, apikey, drop } = await prepare(engine, dir);
  const rps: Record<string, number[]> = { 'consult-1': [], 'consult-2': [], 'send-1': [], 'send-2': [] };
  let failures = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const workers of round % 2 === 0 ? [1, 2] : [2, 1]) {
        const { base, child } = await startServe(env, workers);
        try {
          const headers = { apikey, 'content-type': 'application/json' };
          const consult = await load({
            url: `${base}/credits/consult`,
            headers,
            body: '{}',
            connections: CONNECTIONS,
            durationSec: DURATION_SEC,
          });
          const send = await load({
            url: `${base}/sms/send`,
            headers,
            body: JSON.stringify({ numbers: '5512345678', message: 'Hola' }),
            connections: CONNECTIONS,
            durationSec: DURATION_SEC,
          });
          rps[`consult-${workers}`].push(consult.requestsPerSecond);
          rps[`send-${workers}`].push(send.requestsPerSecond);
          failures += consult.errors + consult.non2xx + send.errors + send.non2xx;
        } finally {
          await stop(child);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await drop();
  }
  const m = Object.fromEntries(Object.entries(rps).map(([k, v]) => [k, median(v)]));
  const rows = [
    `| ${engine} | \`/credits/consult\` | ${fmt(m['consult-1'])} | ${fmt(m['consult-2'])} | **${fmt(m['consult-2'] / m['consult-1'], 2)}×** |`,
    `| ${engine} | \`/sms/send\` (1 recipient) | ${fmt(m['send-1'])} | ${fmt(m['send-2'])} | **${fmt(m['send-2'] / m['send-1'], 2)}×** |`,
    ...(failures > 0 ? [`| ${engine} | errors or non-2xx answers | ${failures} | | |`] : []),
  ];
  return { rows, singleSends: m['send-1'] };
}

/**
 * Several processes on one machine: requests/s of `serve` (one process)
 * against `serve --workers 2`, same database, rounds interleaved (1 then 2,
 * 2 then 1), medians compared. PostgreSQL too when BENCH_DATABASE_URL or
 * TEST_DATABASE_URL names a server.
 */
export async function benchCluster(): Promise<string> {
  const engines: Array<'sqlite' | 'postgres'> =
    process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const rows: string[] = [];
  const singleSends: number[] = [];
  for (const engine of engines) {
    const result = await benchEngine(engine);
    rows.push(...result.rows);
    singleSends.push(result.singleSends);
  }
  return [
    '## Several processes on one machine: `serve --workers 2` against one process',
    '',
    `Medians of ${ROUNDS} interleaved rounds; autocannon ${CONNECTIONS} connections, ${DURATION_SEC} s per endpoint, in its own process on the same machine. The job worker runs in every process (sends are dispatched to the simulator meanwhile).`,
    '',
    '| engine | endpoint | 1 process (req/s) | 2 workers (req/s) | 2 ÷ 1 |',
    '|---|---|---:|---:|---:|',
    ...rows,
    '',
    ...(singleSends.length === 2
      ? [
          `PostgreSQL ÷ SQLite, single sends of one process: **${fmt(singleSends[1] / singleSends[0], 2)}** (the engines' rounds run one after the other, not interleaved).`,
          '',
        ]
      : []),
  ].join('\n');
}
