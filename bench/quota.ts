import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchPostgresUrl, fmt } from './lib.js';
import {
  PERIOD_US,
  cgroupUnavailable,
  cpuGroup,
  prepare,
  startServe,
  type Prepared,
  type Served,
} from './quota-procs.js';
import { bind, connect, submitLoop } from './smpp-server.js';
import { sampleWaits } from './quota-waits.js';
import type { SmppSession } from '../src/smpp-protocol/pdu.js';

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const ROUNDS = Number(env('BENCH_QUOTA_ROUNDS', '3'));
const DURATION_SEC = Number(env('BENCH_QUOTA_SEC', '8'));
const CORE_PER_PROCESS = Number(env('BENCH_QUOTA_CORE', '0.25'));
const PROCESSES = env('BENCH_QUOTA_PROCESSES', '1,2,4').split(',').map(Number);
const ENGINES = env('BENCH_QUOTA_ENGINES', 'postgres,sqlite').split(',') as Array<'postgres' | 'sqlite'>;
const ACCOUNTS = Number(env('BENCH_QUOTA_ACCOUNTS', '20'));
const SMPP_MESSAGES = Number(env('BENCH_QUOTA_SMPP_MESSAGES', '3000'));
const BULK_RECIPIENTS = 500;
const WORKLOADS = env('BENCH_QUOTA_WORKLOADS', 'single-1,single-n,bulk-1,bulk-n,smpp-1').split(',');

interface Autocannon {
  (opts: object): Promise<{ errors: number; non2xx: number; '2xx': number }>;
}
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[Math.floor((s.length - 1) / 2)] + s[Math.ceil((s.length - 1) / 2)]) / 2;
};
const bulkNumbers = Array.from({ length: BULK_RECIPIENTS }, (_, i) => String(5510000000 + i)).join(',');

/** POST /sms/send from `connections` connections for the duration, each request with the next account's key. */
async function sendLoad(base: string, keys: string[], connections: number, body: string): Promise<number> {
  let next = 0;
  const r = await autocannon({
    url: base,
    connections,
    duration: DURATION_SEC,
    requests: [
      {
        method: 'POST',
        path: '/sms/send',
        headers: { 'content-type': 'application/json' },
        body,
        setupRequest: (req: { headers: Record<string, string> }) => ({
          ...req,
          headers: { ...req.headers, apikey: keys[next++ % keys.length] },
        }),
      },
    ],
  });
  return r.errors + r.non2xx;
}

/** SMPP: one bind per process (the primary hands connections out in turn), window 100 each. */
async function smppLoad(served: Served, processes: number): Promise<number> {
  const sessions: SmppSession[] = [];
  try {
    for (let i = 0; i < processes; i++) {
      const s = await connect(served.smppPort);
      sessions.push(s);
      if ((await bind(s, 'transceiver', 'bench0', 'bench01')) !== 0) throw new Error('quota bench: bind refused');
      s.on('deliver_sm', (p: { response(): unknown }) => s.send(p.response() as never));
    }
    const share = Math.ceil(SMPP_MESSAGES / processes);
    const results = await Promise.all(sessions.map((s) => submitLoop(s, share, 100)));
    return results.reduce((n, r) => n + r.refused, 0);
  } finally {
    for (const s of sessions) s.destroy();
  }
}

/** Runs one workload; messages delivered (final receipt recorded) per second from its start until none is open. */
async function measure(db: Prepared, served: Served, workload: string, processes: number) {
  const keys = workload.endsWith('-n') ? db.keys : db.keys.slice(0, 1);
  const before = (await db.counts()).total;
  const t0 = performance.now();
  const waits = db.url && process.env.BENCH_QUOTA_WAITS ? await sampleWaits(db.url) : undefined;
  let failures: number;
  if (workload.startsWith('single'))
    failures = await sendLoad(served.base, keys, 50, JSON.stringify({ numbers: '5512345678', message: 'Hola' }));
  else if (workload.startsWith('bulk'))
    failures = await sendLoad(served.base, keys, 8, JSON.stringify({ numbers: bulkNumbers, message: 'Hola' }));
  else failures = await smppLoad(served, processes);
  if (waits)
    process.stderr.write(
      `bench: quota ${processes} processes ${workload}, backends (share of samples):\n${(await waits()).join('\n')}\n`,
    );
  for (;;) {
    const c = await db.counts();
    if (c.open === 0) return { rate: ((c.total - before) * 1000) / (performance.now() - t0), failures };
    if (performance.now() - t0 > 600_000) throw new Error(`quota bench: ${c.open} messages still open after 10 min`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const LABELS: Record<string, string> = {
  'single-1': 'single-recipient sends, 1 account (50 connections)',
  'single-n': `single-recipient sends, ${ACCOUNTS} accounts (50 connections)`,
  'bulk-1': `${BULK_RECIPIENTS}-recipient sends, 1 account (8 connections)`,
  'bulk-n': `${BULK_RECIPIENTS}-recipient sends, ${ACCOUNTS} accounts (8 connections)`,
  'smpp-1': 'SMPP server submit_sm, 1 account, one bind per process, window 100',
};

async function benchEngine(engine: 'postgres' | 'sqlite', pgUrl: string | undefined): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-bench-quota-'));
  const db = await prepare(engine, dir, ACCOUNTS, pgUrl);
  const rates = new Map<string, number[]>();
  let failures = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = [...PROCESSES.slice(round % PROCESSES.length), ...PROCESSES.slice(0, round % PROCESSES.length)];
      for (const n of order) {
        const group = cpuGroup(CORE_PER_PROCESS * n);
        const served = await startServe(db.env, n, group);
        try {
          for (const w of WORKLOADS) {
            const r = await measure(db, served, w, n);
            failures += r.failures;
            rates.set(`${w}/${n}`, [...(rates.get(`${w}/${n}`) ?? []), r.rate]);
            process.stderr.write(`bench: quota ${engine} round ${round + 1} ${n} processes ${w}: ${fmt(r.rate)}/s\n`);
          }
        } finally {
          await served.stop();
          group.remove();
        }
      }
    }
  } finally {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  const rows = WORKLOADS.map((w) => {
    const one = median(rates.get(`${w}/1`) ?? [NaN]);
    const cells = PROCESSES.map((n) => fmt(median(rates.get(`${w}/${n}`)!)));
    const ratios = PROCESSES.filter((n) => n !== 1).map(
      (n) =>
        `**${fmt(median(rates.get(`${w}/${n}`)!) / one, 2)}×** (${rates
          .get(`${w}/${n}`)!
          .map((x) => fmt(x / one, 2))
          .join(' · ')})`,
    );
    return `| ${engine} | ${LABELS[w]} | ${cells.join(' | ')} | ${ratios.join(' | ')} |`;
  });
  if (failures > 0) rows.push(`| ${engine} | errors, non-2xx answers or refused submit_sm | ${failures} | |`);
  return rows;
}

/**
 * Several processes each held to a share of a core (cgroup cpu quota): messages
 * delivered per second by 1, 2 and 4 processes on one database, interleaved
 * rounds, medians and ratios to one process. The load generator and the
 * database run outside the quota, so each configuration is bound by its own CPU.
 */
export async function benchQuota(): Promise<string> {
  const title = `## Processes under a CPU quota (${CORE_PER_PROCESS} core each): throughput against one process`;
  const why = cgroupUnavailable();
  if (why) return `${title}\n\nSkipped: ${why}.\n`;
  const pgUrl = benchPostgresUrl();
  const engines = ENGINES.filter((e) => e === 'sqlite' || pgUrl);
  const load0 = loadavg();
  const rows: string[] = [];
  for (const engine of engines) rows.push(...(await benchEngine(engine, pgUrl)));
  const load1 = loadavg();
  const others = PROCESSES.filter((n) => n !== 1);
  return [
    title,
    '',
    `\`serve --workers N\`, its process tree in a cgroup v1 cpu group of ${CORE_PER_PROCESS} × N cores (cfs period ${PERIOD_US / 1000} ms); autocannon (in the bench process), PostgreSQL and the SMPP client outside it. Messages delivered per second: from the start of the load until every message sent is final (simulator, SIMULATOR_DLR_DELAY_MS=0). ${DURATION_SEC} s of load per workload, ${SMPP_MESSAGES} submit_sm for SMPP; median of ${ROUNDS} interleaved rounds (each round's ratio in brackets). ${engines.length < ENGINES.length ? 'PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL. ' : ''}Load average ${load0.map((x) => x.toFixed(2)).join(' ')} before, ${load1.map((x) => x.toFixed(2)).join(' ')} after.`,
    '',
    `| engine | workload | ${PROCESSES.map((n) => `${n} process${n > 1 ? 'es' : ''} (/s)`).join(' | ')} | ${others.map((n) => `${n} ÷ 1`).join(' | ')} |`,
    `|---|---|${PROCESSES.map(() => '---:').join('|')}|${others.map(() => '---:').join('|')}|`,
    ...rows,
    '',
  ].join('\n');
}
