import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

const MAIN = resolve(import.meta.dirname, '../src/app/main.js');
const CGROUP_ROOT = process.env.BENCH_CGROUP_ROOT ?? '/sys/fs/cgroup/cpu';
/** The cfs period: a process that spent its share of a period waits for the next one (100 ms, the kernel's default). */
export const PERIOD_US = Number(process.env.BENCH_QUOTA_PERIOD_US ?? 100_000);

/** Why the cgroup v1 `cpu` controller cannot hold a process tree to a quota here, or undefined when it can. */
export function cgroupUnavailable(): string | undefined {
  try {
    accessSync(join(CGROUP_ROOT, 'cgroup.procs'), constants.W_OK);
    const probe = join(CGROUP_ROOT, `mensajero-probe-${process.pid}`);
    mkdirSync(probe);
    rmdirSync(probe);
    return undefined;
  } catch (err) {
    return `the cgroup v1 cpu controller at ${CGROUP_ROOT} is not writable (${(err as Error).message})`;
  }
}

/** A child cpu group allowing `cores` cores (cfs quota over PERIOD_US); `remove` once its processes are gone. */
export function cpuGroup(cores: number): { add(pid: number): void; remove(): void } {
  const dir = join(CGROUP_ROOT, `mensajero-quota-${process.pid}-${randomBytes(3).toString('hex')}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
  writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(Math.round(cores * PERIOD_US)));
  return {
    add: (pid) => writeFileSync(join(dir, 'cgroup.procs'), String(pid)),
    remove: () => rmdirSync(dir),
  };
}

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

export interface Served {
  base: string;
  smppPort: number;
  pid: number;
  stop(): Promise<void>;
}

/**
 * `mensajero serve --workers N`, its primary put in `group` before it forks
 * (the workers inherit the group), answering on fixed ports.
 */
export async function startServe(
  env: NodeJS.ProcessEnv,
  workers: number,
  group: { add(pid: number): void },
): Promise<Served> {
  const port = await freePort();
  const smppPort = await freePort();
  const child: ChildProcess = spawn(process.execPath, [MAIN, 'serve', '--workers', String(workers)], {
    env: {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SMPP_SERVER_PORT: String(smppPort),
      SMPP_SERVER_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  group.add(child.pid!);
  let log = '';
  await new Promise<void>((ok, fail) => {
    const seen = (d: Buffer) => {
      log += d;
      const serving =
        workers === 1 ? /"msg":"mensajero is serving"/ : /"workers":\d+,[^\n]*"msg":"mensajero is serving"/;
      if (serving.test(log)) ok();
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.once('exit', () => fail(new Error(`quota bench: serve --workers ${workers} exited:\n${log.slice(-4000)}`)));
  });
  child.stdout!.resume();
  return {
    base: `http://127.0.0.1:${port}`,
    smppPort,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface Prepared {
  env: NodeJS.ProcessEnv;
  /** The PostgreSQL URL the processes use (its search_path the bench's schema). */
  url?: string;
  /** One API key per account. */
  keys: string[];
  /** Messages of every account not yet final (stage < 2), and how many exist. */
  counts(): Promise<{ open: number; total: number }>;
  drop(): Promise<void>;
}

function cli(env: NodeJS.ProcessEnv, args: string[], input?: string): string {
  const r = spawnSync(process.execPath, [MAIN, ...args], { env, encoding: 'utf8', input });
  if (r.status !== 0)
    throw new Error(`quota bench: ${args.slice(0, 2).join(' ')} failed (exit ${r.status}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** A fresh database of the engine (a PostgreSQL schema or a SQLite file in `dir`) with `accounts` funded accounts. */
export async function prepare(
  engine: 'sqlite' | 'postgres',
  dir: string,
  accounts: number,
  pgUrl: string | undefined,
): Promise<Prepared> {
  let url = `sqlite:${join(dir, 'quota.db')}`;
  let drop: () => Promise<void>;
  let counts: () => Promise<{ open: number; total: number }>;
  const sql = `SELECT count(*) FILTER (WHERE stage < 2) AS open, count(*) AS total FROM messages`;
  if (engine === 'postgres') {
    const schema = `bench_${randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    const u = new URL(pgUrl!);
    u.searchParams.set('options', `-c search_path=${schema}`);
    url = u.toString();
    counts = async () => {
      const { rows } = await admin.query(sql.replaceAll('messages', `${schema}.messages`));
      return { open: Number(rows[0].open), total: Number(rows[0].total) };
    };
    drop = async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    };
  } else {
    let db: Database.Database | undefined;
    counts = async () => {
      db ??= new Database(join(dir, 'quota.db'), { readonly: true });
      const row = db.prepare(sql.replace('count(*) FILTER (WHERE stage < 2)', 'sum(stage < 2)')).get() as {
        open: number | null;
        total: number;
      };
      return { open: Number(row.open ?? 0), total: Number(row.total) };
    };
    drop = async () => void db?.close();
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: url,
    DATA_DIR: dir,
    MENSAJERO_SECRET: randomBytes(32).toString('hex'),
    RATE_LIMIT_PER_SECOND: '1000000',
    SIMULATOR_DLR_DELAY_MS: '0',
    // Sends go to a few numbers again and again: the destination caps would refuse all but the first few.
    DESTINATION_MAX_PER_NUMBER_HOUR: '0',
    DESTINATION_MAX_SAME_TEXT_HOUR: '0',
  };
  cli(env, ['migrate']);
  const keys: string[] = [];
  for (let i = 0; i < accounts; i++) {
    const email = `bench${i}@example.com`;
    const out = cli(env, [
      'accounts',
      'create',
      '--email',
      email,
      '--password',
      'bench-password-1',
      '--credits',
      '100000000',
      '--json',
    ]);
    keys.push(JSON.parse(out).apikey);
    // The SMPP user of the account: no throughput cap, binds for up to 8 processes.
    cli(
      env,
      ['smpp-users', 'add', '--email', email, '--system-id', `bench${i}`, '--password', '-'].concat([
        '--throughput',
        '0',
        '--window',
        '100',
        '--max-binds',
        '16',
        '--json',
      ]),
      'bench01\n',
    );
  }
  return { env, url: engine === 'postgres' ? url : undefined, keys, counts, drop };
}
