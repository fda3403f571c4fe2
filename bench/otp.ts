import { AsyncLocalStorage } from 'node:async_hooks';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { fmt, load, startBenchService, type BenchService, type LoadResult } from './lib.js';
import { CreateBody, parseOtp, VerifyBody } from '../src/features/otp/params.js';
import { sendCode, verifyCode } from '../src/features/otp/service.js';

const CONNECTIONS = 50;
const DURATION_SEC = 5;
const ROUNDS = 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * OTP create + verify cycles through HTTP on SQLite: each autocannon
 * connection sends POST /v2/otp for a fresh number with code_show 1, then
 * POST /v2/otp/verify with the code it got back. The baseline is POST
 * /credits/consult on the same service; the two alternate for three rounds
 * and the medians are compared. Beside it, the SQL statements and
 * transactions one create and one verify run (the API key lookup excluded).
 */
export async function benchOtp(): Promise<string> {
  const svc = await startBenchService();
  let section: string[];
  try {
    const statements = await countStatements(svc);
    const underLoad = { statements: 0, commits: 0 };
    const { consult, cycles } = await alternate(svc, (round) => {
      const count = { statements: 0, commits: 0 };
      return withStatementHook(
        (source, autocommit) => {
          count.statements++;
          if (/^commit/i.test(source) || (autocommit && !/^begin/i.test(source))) count.commits++;
        },
        () => runChild(svc.base, svc.apikey, round),
      ).finally(() => {
        underLoad.statements += count.statements;
        underLoad.commits += count.commits;
      });
    });
    const cyclesRun = cycles.reduce((sum, r) => sum + (r.requestsPerSecond * DURATION_SEC) / 2, 0);
    section = [
      '## OTP: create + verify cycles vs /credits/consult (SQLite)',
      '',
      `${CONNECTIONS} connections, autocannon in its own process; ${ROUNDS} alternating rounds of ${DURATION_SEC} s each, medians compared. A cycle is POST /v2/otp (fresh number, sms, code_show 1: a code generated, HMACed and sealed, the message charged, written and handed to the simulated carrier) then POST /v2/otp/verify with that code.`,
      '',
      ...cycleTable(consult, cycles),
      '',
      `Under load (every statement of the process during the cycle rounds, the API key lookups and the worker's polling included, ÷ cycles run): ${fmt(underLoad.statements / cyclesRun, 1)} statements and ${fmt(underLoad.commits / cyclesRun, 2)} commits per cycle (a COMMIT, or a write outside a transaction).`,
      '',
      `SQL statements per request, the API key lookup not counted (transactions in brackets): create ${statements.create.statements} (${statements.create.transactions}), of which ${statements.create.otp} before the message is handed to the pipeline; verify of the right code ${statements.verify.statements} (${statements.verify.transactions}); a wrong code ${statements.wrong.statements} (${statements.wrong.transactions}).`,
      '',
    ];
  } finally {
    await svc.close();
  }
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!postgresUrl) return section.join('\n');
  const pg = await startBenchService({}, undefined, { postgresUrl });
  try {
    const { consult, cycles } = await alternate(pg, (round) => runChild(pg.base, pg.apikey, round));
    section.push(
      '### The same on PostgreSQL',
      '',
      'One process on the PostgreSQL server of `BENCH_DATABASE_URL` or `TEST_DATABASE_URL`, same load, same rounds.',
      '',
      ...cycleTable(consult, cycles),
      '',
    );
  } finally {
    await pg.close();
  }
  return section.join('\n');
}

/** ROUNDS rounds of /credits/consult then OTP cycles (`cycles` runs one round's load); refused on any failed request. */
async function alternate(
  svc: BenchService,
  cycles: (round: number) => Promise<LoadResult>,
): Promise<{ consult: LoadResult[]; cycles: LoadResult[] }> {
  const results = { consult: [] as LoadResult[], cycles: [] as LoadResult[] };
  for (let round = 0; round < ROUNDS; round++) {
    results.consult.push(
      await load({
        url: `${svc.base}/credits/consult`,
        headers: { apikey: svc.apikey, 'content-type': 'application/json' },
        body: '{}',
        connections: CONNECTIONS,
        durationSec: DURATION_SEC,
      }),
    );
    results.cycles.push(await cycles(round));
  }
  for (const [name, rs] of Object.entries(results))
    for (const r of rs)
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name} answered ${r.non2xx} non-2xx and ${r.errors} errors`);
  return results;
}

function cycleTable(consult: LoadResult[], cycles: LoadResult[]): string[] {
  const consultRps = median(consult.map((r) => r.requestsPerSecond));
  const cyclesPerSecond = median(cycles.map((r) => r.requestsPerSecond)) / 2;
  const row = (label: string, rs: LoadResult[]) =>
    `| ${label} | ${rs.map((r) => fmt(r.requestsPerSecond)).join(' / ')} | ${fmt(median(rs.map((r) => r.requestsPerSecond)))} | ${median(rs.map((r) => r.p50Ms))} | ${median(rs.map((r) => r.p99Ms))} |`;
  return [
    '| endpoint | requests/s per round | median requests/s | p50 ms | p99 ms |',
    '|---|---:|---:|---:|---:|',
    row('POST /credits/consult (baseline)', consult),
    row('POST /v2/otp then /v2/otp/verify', cycles),
    '',
    `Cycles per second: **${fmt(cyclesPerSecond)}**. Ratio cycles/s ÷ /credits/consult requests/s (medians): **${fmt(cyclesPerSecond / consultRps, 3)}** (target ≥ 0.15).`,
  ];
}

interface Count {
  statements: number;
  transactions: number;
  /** Statements before the first one of the messaging pipeline (the account's prices). */
  otp: number;
}

/**
 * Counts the statements better-sqlite3 runs for one call of the OTP service,
 * in its async context only (the job worker's polling is not counted).
 */
async function countStatements(svc: BenchService): Promise<{ create: Count; verify: Count; wrong: Count }> {
  const context = new AsyncLocalStorage<Count>();
  const run = async (f: () => Promise<unknown>): Promise<Count> => {
    const count: Count = { statements: 0, transactions: 0, otp: -1 };
    await context.run(count, f).catch(() => undefined);
    return count;
  };
  return withStatementHook(
    (source) => {
      const count = context.getStore();
      if (!count) return;
      count.statements++;
      if (/^begin/i.test(source)) count.transactions++;
      if (count.otp < 0 && source.includes('account_prices')) count.otp = count.statements - 1;
    },
    async () => {
      const { ctx } = svc.service;
      const number = { phone_number: '5599999999', country_code: '52' };
      let code = '';
      const create = await run(async () => {
        code = String(
          (
            await sendCode(
              ctx,
              svc.accountId,
              parseOtp(CreateBody, { ...number, company: 'Bench', code_show: 1 }, 'POST /v2/otp'),
            )
          ).body.code,
        );
      });
      const key = { accountId: svc.accountId, countryCode: number.country_code, phoneNumber: number.phone_number };
      const wrong = await run(() =>
        verifyCode(
          ctx,
          key,
          parseOtp(VerifyBody, { ...number, code: code === '111111' ? '222222' : '111111' }, 'POST /v2/otp/verify')
            .code,
        ),
      );
      const verify = await run(() => verifyCode(ctx, key, code));
      return { create, verify, wrong };
    },
  );
}

/**
 * Calls `onStatement` with the SQL of every statement better-sqlite3 runs
 * while `f` runs, and whether it is a write outside a transaction (a commit of its own).
 */
async function withStatementHook<T>(
  onStatement: (source: string, autocommit: boolean) => void,
  f: () => Promise<T>,
): Promise<T> {
  const SQLite = createRequire(import.meta.url)('better-sqlite3');
  const probe = new SQLite(':memory:');
  const statementProto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = statementProto[method];
    originals.set(method, original);
    statementProto[method] = function (
      this: { source: string; reader: boolean; database: { inTransaction: boolean } },
      ...args: unknown[]
    ) {
      onStatement(this.source, !this.reader && !this.database.inTransaction);
      return original.apply(this, args);
    };
  }
  try {
    return await f();
  } finally {
    for (const [method, original] of originals) statementProto[method] = original;
  }
}

/** The load runs in a child process so that it does not share the server's event loop. */
function runChild(base: string, apikey: string, round: number): Promise<LoadResult> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [fileURLToPath(import.meta.url), CHILD_FLAG, base, apikey, String(round)],
      { maxBuffer: 16 * 1024 * 1024 },
      (err, out) => (err ? reject(err) : resolve(JSON.parse(out))),
    ),
  );
}

const CHILD_FLAG = '--otp-cycles';

async function childMain(base: string, apikey: string, round: number): Promise<void> {
  const autocannon = createRequire(import.meta.url)('autocannon');
  // Each round its own numbers: every create is a new verification. Mexico City numbers (56…): codes go only to real lines.
  let next = 5_600_000_000 + round * 10_000_000;
  const headers = { apikey, 'content-type': 'application/json' };
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: DURATION_SEC,
    requests: [
      {
        method: 'POST',
        path: '/v2/otp',
        headers,
        setupRequest: (req: Record<string, unknown>, context: Record<string, unknown>) => {
          context.phone = String(next++);
          return {
            ...req,
            body: JSON.stringify({ phone_number: context.phone, country_code: '52', company: 'Bench', code_show: 1 }),
          };
        },
        onResponse: (status: number, body: string, context: Record<string, unknown>) => {
          if (status === 201) context.code = JSON.parse(body).code;
        },
      },
      {
        method: 'POST',
        path: '/v2/otp/verify',
        headers,
        setupRequest: (req: Record<string, unknown>, context: Record<string, unknown>) => ({
          ...req,
          body: JSON.stringify({ phone_number: context.phone, country_code: '52', code: context.code }),
        }),
      },
    ],
  });
  const out: LoadResult = {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
  process.stdout.write(JSON.stringify(out));
}

if (process.argv[2] === CHILD_FLAG) await childMain(process.argv[3], process.argv[4], Number(process.argv[5]));
