import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchPostgresUrl, fmt, startBenchService, type BenchService } from './lib.js';
import { TestSmsc, mostInOneSecond } from '../test/helpers/smsc.js';
import { runCommands } from '../test/helpers/cli.js';
import { carrierCommands } from '../src/carriers/cli.js';
import { insertAccount } from '../src/accounts/store.js';
import { toUnits } from '../src/accounts/credits.js';

const CHILD_FLAG = '--traffic-smsc';
const THROUGHPUT = 50;

interface Arrival {
  at: number;
  destination: string;
}

/** A's campaign sizes of each scenario, in requests of 500 numbers; B's requests come once the carrier has 100 of A's. */
const SCENARIOS = [
  { label: '1,500 in 3 requests', requests: 3 },
  { label: '20,000 in 40 requests', requests: 40 },
];

/**
 * Traffic control at one SMPP carrier held to 50 messages per second (window 10, one bind; the test SMSC in its own
 * process, so arrivals are timed where the carrier receives them): account A sends a campaign in requests of 500
 * numbers; once the carrier has received the first 100 of them, account B asks for an OTP code, sends one SMS and a
 * campaign of 100 numbers. Counted at the carrier: when B's messages arrived after B's requests, how many of A's came
 * first, and the most messages in any sliding second. Then two families' campaigns at once: the carrier's share of each.
 */
export async function benchTraffic(): Promise<string> {
  const rows: string[] = [];
  const shares: string[] = [];
  const engines: Array<['SQLite' | 'PostgreSQL', string | undefined]> = [['SQLite', undefined]];
  const pg = benchPostgresUrl();
  if (pg) engines.push(['PostgreSQL', pg]);
  for (const [engine, url] of engines) {
    for (const s of SCENARIOS) rows.push(await scenario(engine, url, s));
    shares.push(await twoFamilies(engine, url));
  }
  return [
    '## Traffic control: an OTP code, a single SMS and a small campaign beside a big campaign at one carrier',
    '',
    `One SMPP carrier at ${THROUGHPUT} messages/s (window 10, one bind; the test SMSC in its own process). A sends a campaign in requests of 500 numbers; once the carrier has the first 100, B asks for an OTP code (\`POST /v2/otp\`), sends one SMS and a 100-number campaign. Times are from B's request to the arrival at the carrier; "A's first" counts A's messages that arrived in between. Before traffic control (main 864a5b9, the issue's figures): the code at 28.9 s after 1,400 of A's, the single SMS up to 40 s, the small campaign up to 82 s, and 100 in one sliding second.${pg ? '' : ' PostgreSQL: skipped (no BENCH_DATABASE_URL or TEST_DATABASE_URL).'}`,
    '',
    "| engine | A's campaign | B's OTP code (A's first) | B's single SMS (A's first) | B's 100-message campaign done | most in one sliding second |",
    '|---|---|---:|---:|---:|---:|',
    ...rows,
    '',
    `Two families' campaigns of 1,500 each, started together at the same carrier: the carrier's messages of each while both were waiting (round-robin by family).`,
    '',
    '| engine | family A | family C |',
    '|---|---:|---:|',
    ...shares,
    '',
  ].join('\n');
}

interface Setup {
  svc: BenchService;
  smsc: Smsc;
  b: { apikey: string; id: number };
}

async function setUp(url: string | undefined): Promise<Setup> {
  const smsc = await startSmscChild();
  const svc = await startBenchService(
    { CARRIER_POLL_MS: '100', WORKER_POLL_MS: '50' },
    1_000_000,
    url ? { postgresUrl: url } : {},
  );
  const ctx = svc.service.ctx;
  const cli = (...args: string[]) => runCommands(ctx, [carrierCommands], args);
  const added = await cli(
    ...['carriers', 'add', 'smpp', '--name', 'shared', '--host', '127.0.0.1', '--port', String(smsc.port)],
    ...['--system-id', 'bench', '--password', 'pw', '--throughput', String(THROUGHPUT), '--window', '10'],
  );
  if (added.error) throw new Error(added.error);
  const route = await cli('routes', 'add', '--channel', 'sms', '--prefix', '52', '--carriers', 'shared');
  if (route.error) throw new Error(route.error);
  while (!ctx.carriers.manager.connector('shared')?.available) await new Promise((r) => setTimeout(r, 50));
  const { account, apikey } = await insertAccount(ctx.db.kysely, ctx.secrets.keyEncryption, {
    email: 'b@example.com',
    passwordHash: 'scrypt$unused',
    credits: toUnits(100_000),
  });
  return { svc, smsc, b: { apikey, id: account.id } };
}

const numbers = (area: string, from: number, n: number) =>
  Array.from({ length: n }, (_, i) => `${area}${String(from + i).padStart(6, '0')}`);

async function post(svc: BenchService, path: string, apikey: string, body: unknown) {
  const r = await fetch(`${svc.base}${path}`, {
    method: 'POST',
    headers: { apikey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
}

async function scenario(engine: string, url: string | undefined, s: (typeof SCENARIOS)[number]): Promise<string> {
  const { svc, smsc, b } = await setUp(url);
  try {
    const a = numbers('5530', 0, s.requests * 500);
    const sending = (async () => {
      for (let i = 0; i < s.requests; i++)
        await post(svc, '/sms/send', svc.apikey, {
          numbers: a.slice(i * 500, i * 500 + 500).join(','),
          message: 'Promo',
        });
    })();
    while ((await smsc.count()) < 100) await new Promise((r) => setTimeout(r, 20));
    const t0 = Date.now();
    const atStart = await smsc.count();
    await post(svc, '/v2/otp', b.apikey, {
      phone_number: '5531000001',
      country_code: '52',
      channel: 'sms',
      company: 'B',
    });
    const tSingle = Date.now();
    await post(svc, '/sms/send', b.apikey, { numbers: '5531000002', message: 'Su pedido' });
    const tSmall = Date.now();
    const small = numbers('5532', 0, 100);
    await post(svc, '/sms/send', b.apikey, { numbers: small.join(','), message: 'Aviso' });
    const bAll = new Set(['525531000001', '525531000002', ...small.map((n) => `52${n}`)]);
    for (;;) {
      const arrivals = await smsc.arrivals();
      if (arrivals.filter((x) => bAll.has(x.destination)).length >= bAll.size) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await sending;
    const arrivals = await smsc.arrivals();
    const index = (d: string) => arrivals.findIndex((x) => x.destination === d);
    const aSet = new Set(a.map((n) => `52${n}`));
    const aBefore = (i: number) => arrivals.slice(atStart, i).filter((x) => aSet.has(x.destination)).length;
    const otp = index('525531000001');
    const single = index('525531000002');
    const smallLast = Math.max(...small.map((n) => index(`52${n}`)));
    const cell = (i: number, since: number) => `${fmt((arrivals[i].at - since) / 1000, 2)} s (${fmt(aBefore(i))})`;
    const most = mostInOneSecond(arrivals.map((x) => x.at));
    return `| ${engine} | ${s.label} | ${cell(otp, t0)} | ${cell(single, tSingle)} | ${fmt((arrivals[smallLast].at - tSmall) / 1000, 2)} s | ${most} |`;
  } finally {
    await svc.close();
    smsc.child.kill();
  }
}

async function twoFamilies(engine: string, url: string | undefined): Promise<string> {
  const { svc, smsc, b } = await setUp(url);
  try {
    const a = numbers('5533', 0, 1_500);
    const c = numbers('5534', 0, 1_500);
    const sendAll = (apikey: string, list: string[]) =>
      (async () => {
        for (let i = 0; i < list.length; i += 500)
          await post(svc, '/sms/send', apikey, { numbers: list.slice(i, i + 500).join(','), message: 'Promo' });
      })();
    await Promise.all([sendAll(svc.apikey, a), sendAll(b.apikey, c)]);
    while ((await smsc.count()) < 600) await new Promise((r) => setTimeout(r, 100));
    const arrivals = (await smsc.arrivals()).slice(0, 600);
    const of = (list: string[]) => {
      const set = new Set(list.map((n) => `52${n}`));
      return arrivals.filter((x) => set.has(x.destination)).length;
    };
    return `| ${engine} | ${fmt((of(a) * 100) / arrivals.length)} % | ${fmt((of(c) * 100) / arrivals.length)} % |`;
  } finally {
    await svc.close();
    smsc.child.kill();
  }
}

interface Smsc {
  child: ChildProcess;
  port: number;
  count(): Promise<number>;
  arrivals(): Promise<Arrival[]>;
}

function startSmscChild(): Promise<Smsc> {
  const child = fork(fileURLToPath(import.meta.url), [CHILD_FLAG], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = <T>(what: 'count' | 'arrivals') =>
    new Promise<T>((resolve) => {
      child.once('message', (m: { [k: string]: T }) => resolve(m[what]));
      child.send({ ask: what });
    });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) =>
      resolve({ child, port: m.port, count: () => ask('count'), arrivals: () => ask('arrivals') }),
    );
    child.once('exit', (code) => reject(new Error(`SMSC child exited with ${code}`)));
  });
}

if (process.argv.includes(CHILD_FLAG)) {
  const smsc = await new TestSmsc({ record: false }).start();
  process.on('message', (m: { ask: 'count' | 'arrivals' }) => {
    if (m.ask === 'count') process.send!({ count: smsc.arrivals.length });
    else process.send!({ arrivals: smsc.arrivals.map(({ at, destination }) => ({ at, destination })) });
  });
  process.send!({ port: smsc.port });
}
