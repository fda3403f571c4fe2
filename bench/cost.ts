import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { startServe } from '../test/helpers/cli.js';
import { prepare } from './cluster.js';
import { benchPostgresUrl, fmt, load, pgClient } from './lib.js';

/** The repository this bench was built from (dist/bench/cost.js → the checkout). */
const ROOT = resolve(import.meta.dirname, '../..');
const MAIN = join(ROOT, 'dist/bundle/main.js');
/** The commit before traffic control, the abuse controls and the acceptance step. */
const DEFAULT_BASELINE = '864a5b9';
const ROUNDS = Number(process.env.BENCH_COST_ROUNDS ?? 5);
const ROUND_SECONDS = Number(process.env.BENCH_COST_SECONDS ?? 5);
const CONNECTIONS = 50;
const numbers = Array.from({ length: 500 }, (_, i) => String(5510000000 + i));
const BUILT = '.mensajero-bench-built';

const git = (...args: string[]) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' }).trim();

function run(cmd: string, args: string[], cwd: string): void {
  process.stderr.write(`bench: cost: ${cmd} ${args.join(' ')} (in ${cwd})\n`);
  // npm from the Node that runs the bench, whatever the PATH says.
  const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
  const r = spawnSync(cmd, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`cost bench: ${cmd} ${args.join(' ')} failed in ${cwd} (exit ${r.status})`);
}

/**
 * The baseline commit checked out as a detached git worktree under the OS temp dir, installed from its own lockfile
 * and built; one already built there for the same commit is reused. Returns its commit and its `mensajero` bundle.
 */
export function baselineBuild(ref: string): { commit: string; main: string } {
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = join(tmpdir(), `mensajero-baseline-${commit}`);
  const main = join(dir, 'dist/bundle/main.js');
  if (existsSync(join(dir, BUILT)) && existsSync(main)) return { commit, main };
  // A checkout left half-installed by an interrupted run: start again.
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  git('worktree', 'prune');
  git('worktree', 'add', '--detach', dir, commit);
  run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], dir);
  run('npm', ['run', 'build'], dir);
  writeFileSync(join(dir, BUILT), `${commit}\n`);
  return { commit, main };
}

/** Messages in a service's database, and those not yet at a final status (stage < 2). */
interface Counter {
  counts(): Promise<{ total: number; pending: number }>;
  close(): Promise<void>;
}

const COUNT =
  'select count(*) as total, coalesce(sum(case when stage < 2 then 1 else 0 end), 0) as pending from messages';

async function counter(env: NodeJS.ProcessEnv): Promise<Counter> {
  const url = env.DATABASE_URL!;
  if (url.startsWith('sqlite:')) {
    const db = new SQLite(url.slice('sqlite:'.length), { readonly: true, fileMustExist: true });
    const stmt = db.prepare<[], { total: number; pending: number }>(COUNT);
    return { counts: async () => stmt.get()!, close: async () => void db.close() };
  }
  const u = new URL(url);
  const schema = /search_path=(\w+)/.exec(u.searchParams.get('options') ?? '')![1];
  u.searchParams.delete('options');
  const client = await pgClient(u.toString(), schema);
  return {
    async counts() {
      const row = (await client.query(COUNT)).rows[0];
      return { total: Number(row.total), pending: Number(row.pending) };
    },
    close: () => client.end(),
  };
}

interface Side {
  base: string;
  apikey: string;
  counter: Counter;
}

interface Round {
  /** Messages delivered per second, from the start of the load to the last delivery report. */
  delivered: number;
  accepted: number;
  p99Ms: number;
}

/** One load round of POST /sms/send, then the wait until every message has its delivery report from the simulator. */
async function round(side: Side, recipients: string[]): Promise<Round> {
  const before = (await side.counter.counts()).total;
  const t0 = performance.now();
  const r = await load({
    url: `${side.base}/sms/send`,
    headers: { apikey: side.apikey, 'content-type': 'application/json' },
    body: JSON.stringify({ numbers: recipients.join(','), message: 'Hola' }),
    connections: CONNECTIONS,
    durationSec: ROUND_SECONDS,
  });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`/sms/send answered ${r.non2xx} non-2xx and ${r.errors} errors`);
  const loadSeconds = (performance.now() - t0) / 1000;
  const until = performance.now() + 120_000;
  let c = await side.counter.counts();
  while (c.pending > 0) {
    if (performance.now() > until) throw new Error(`cost bench: ${c.pending} messages not delivered in 120 s`);
    await new Promise((r) => setTimeout(r, 20));
    c = await side.counter.counts();
  }
  const messages = c.total - before;
  return { delivered: messages / ((performance.now() - t0) / 1000), accepted: messages / loadSeconds, p99Ms: r.p99Ms };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Both services on fresh databases of the engine, the same sizes in interleaved rounds (main, baseline, main, …). */
async function benchEngine(engine: 'sqlite' | 'postgres', afterMain: string, baselineMain: string): Promise<string[]> {
  const started: Array<{ stop: () => Promise<void> }> = [];
  const start = async (main: string): Promise<Side> => {
    const dir = mkdtempSync(join(tmpdir(), 'mensajero-bench-cost-'));
    const { env, apikey, drop } = await prepare(engine, dir, main);
    // The simulator's reports at once and the worker's poll short, as the sms section runs it.
    const serveEnv = { ...(env as Record<string, string>), SIMULATOR_DLR_DELAY_MS: '0', WORKER_POLL_MS: '20' };
    const serve = await startServe(serveEnv, [], main);
    const side = { base: serve.base, apikey, counter: await counter(env) };
    started.push({
      async stop() {
        await side.counter.close();
        serve.child.kill('SIGTERM');
        await serve.exited;
        rmSync(dir, { recursive: true, force: true });
        await drop();
      },
    });
    return side;
  };
  const rows: string[] = [];
  try {
    const after = await start(afterMain);
    const before = await start(baselineMain);
    for (const [label, recipients] of [
      ['1 recipient', [numbers[0]]],
      ['500 recipients', numbers],
    ] as const) {
      const a: Round[] = [];
      const b: Round[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        a.push(await round(after, [...recipients]));
        b.push(await round(before, [...recipients]));
        process.stderr.write(
          `bench: cost: ${engine}, ${label}, round ${i + 1}: ${fmt(a[i].delivered)} vs ${fmt(b[i].delivered)} msg/s delivered\n`,
        );
      }
      const perRound = (rs: Round[]) => rs.map((r) => fmt(r.delivered)).join(' / ');
      const m = (rs: Round[], k: keyof Round) => median(rs.map((r) => r[k]));
      rows.push(
        `| ${engine} | ${label} | ${perRound(a)} | ${perRound(b)} | ${fmt(m(a, 'delivered'))} | ${fmt(m(b, 'delivered'))} | **${fmt(m(a, 'delivered') / m(b, 'delivered'), 3)}** | ${fmt(m(a, 'accepted') / m(b, 'accepted'), 3)} | ${fmt(m(a, 'p99Ms'))} / ${fmt(m(b, 'p99Ms'))} |`,
      );
    }
  } finally {
    for (const s of started) await s.stop();
  }
  return rows;
}

/**
 * The cost of what was added since a baseline commit (traffic control, abuse controls, the acceptance step) on the
 * send path (one section per baseline: `## Cost of the send path against the baseline <commit>`): messages delivered
 * per second by this checkout's `mensajero serve` against the baseline's, each a process of its own on a fresh
 * database, single-recipient and 500-recipient POST /sms/send, on SQLite and on PostgreSQL. With `BENCH_AFTER` (a git
 * ref, built as the baseline is) that commit stands for this checkout: the cost of one change between two commits
 * (its section: `## Cost of the send path: <after> against the baseline <commit>`).
 */
export async function benchCost(): Promise<string> {
  const ref = process.env.BENCH_BASELINE ?? DEFAULT_BASELINE;
  const { commit, main: baselineMain } = baselineBuild(ref);
  const afterRef = process.env.BENCH_AFTER;
  const afterBuild = afterRef ? baselineBuild(afterRef) : undefined;
  const head = afterBuild ? afterBuild.commit.slice(0, 7) : git('rev-parse', '--short', 'HEAD');
  const subject = git('log', '-1', '--format=%s', commit).slice(0, 120);
  const engines: Array<'sqlite' | 'postgres'> = benchPostgresUrl() ? ['sqlite', 'postgres'] : ['sqlite'];
  const rows: string[] = [];
  for (const engine of engines) rows.push(...(await benchEngine(engine, afterBuild?.main ?? MAIN, baselineMain)));
  const afterSubject = afterBuild ? git('log', '-1', '--format=%s', afterBuild.commit).slice(0, 120) : '';
  return [
    afterBuild
      ? `## Cost of the send path: ${head} against the baseline ${commit.slice(0, 7)}`
      : `## Cost of the send path against the baseline ${commit.slice(0, 7)}`,
    '',
    `${afterBuild ? `The commit \`BENCH_AFTER\`=${afterRef} (${afterBuild.commit.slice(0, 10)}, "${afterSubject}", built as the baseline is)` : `This checkout (${head}, its \`dist/\`)`} against the baseline \`BENCH_BASELINE\`=${ref} (${commit.slice(0, 10)}, "${subject}"${ref === DEFAULT_BASELINE ? ': before traffic control, the abuse controls and the acceptance step' : ''}), each \`dist/bundle/main.js serve\` in a process of its own on a fresh database with one funded account (both up for the whole engine), simulator with SIMULATOR_DLR_DELAY_MS=0, WORKER_POLL_MS=20, destination caps off. ${ROUNDS} interleaved rounds (after, before, after, …) of ${ROUND_SECONDS} s, autocannon ${CONNECTIONS} connections in its own process; a round counts from the start of the load until every message has its delivery report.`,
    '',
    '| engine | POST /sms/send | after: delivered msg/s per round | before: delivered msg/s per round | after, median | before, median | after ÷ before, delivered | after ÷ before, accepted | p99 ms after / before |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    'Targets for after ÷ before, delivered: issue 45 ≥ 0.90 for both sizes; issue 46 ≥ 0.95 for single sends; issue 49 ≥ 0.95 for both.' +
      (engines.length === 1 ? ' PostgreSQL skipped: neither BENCH_DATABASE_URL nor TEST_DATABASE_URL is set.' : ''),
    '',
  ].join('\n');
}
