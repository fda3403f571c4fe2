import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'vitest';
import { eventually } from '../helpers/harness.js';
import { cliEnv, runMensajero, startServe } from '../helpers/cli.js';
import { SilentLink } from '../helpers/silent-link.js';
import { TestSmsc } from '../helpers/smsc.js';
import { openDatabase, type Db } from '../../src/db/engine.js';
import { startRecordingCarrier, startWebhookReceiver } from './peers.js';

/** Which of A's links fall silent: all of them (a full cut), or only the one to PostgreSQL. */
export type Cut = 'full' | 'postgres';

export interface PartitionSize {
  total: number;
  perRequest: number;
  leaseMs: number;
  /** How long after every send was accepted the cut starts at the latest, and how long it lasts. */
  beforeCutMs: number;
  cutMs: number;
  simulatorMps: number;
  smppThroughput: number;
  /** How long both carriers take to answer each submit: what a process has in flight at any instant. */
  answerDelayMs: number;
}

export const BINDS = 2;
const CREDITS_PER_MESSAGE = 2;

/** One hand-off seen by a carrier: the message (its number), which process handed it, when. */
export interface HandOff {
  number: string;
  by: 'A' | 'B';
  at: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Two `serve` processes A and B on one PostgreSQL schema; A reaches PostgreSQL, the SMSC and the recording carrier, and is reached, through SilentLinks. */
async function cluster(size: PartitionSize) {
  const smsc = await new TestSmsc({
    receipt: () => ({ stat: 'DELIVRD', delayMs: 20 }),
    responseDelayMs: size.answerDelayMs,
  }).start();
  const carrier = await startRecordingCarrier(size.answerDelayMs);
  const hooks = await startWebhookReceiver();
  const cli = await cliEnv(
    'postgres',
    {
      CARRIER_MODULE: resolve(import.meta.dirname, 'carrier.mjs'),
      CHAOS_CARRIER_URL: carrier.url,
      CHAOS_ROUTED_PREFIX: '52553',
      CHAOS_CARRIER_MPS: String(size.simulatorMps),
      CHAOS_CARRIER_BATCH: '50',
      WORKER_CONCURRENCY: '4',
      WORKER_POLL_MS: '20',
      JOB_LEASE_MS: String(size.leaseMs),
      CARRIER_POLL_MS: '100',
      DISPATCH_RETRY_MS: '200',
      SIMULATOR_DLR_DELAY_MS: '20',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_HOST_CONCURRENCY: '32',
      RATE_LIMIT_PER_SECOND: '10000',
    },
    { migrated: true },
  );
  const carrierUrl = new URL(carrier.url);
  const links = {
    db: await SilentLink.toPostgres(process.env.TEST_DATABASE_URL!),
    smpp: await new SilentLink({ host: '127.0.0.1', port: smsc.port }, { holdCloses: true }).start(),
    carrier: await new SilentLink({ host: '127.0.0.1', port: Number(carrierUrl.port) }).start(),
    http: null as SilentLink | null,
  };
  const envA = {
    ...cli.env,
    DATABASE_URL: links.db.through(cli.env.DATABASE_URL),
    CHAOS_CARRIER_URL: links.carrier.through(carrier.url),
    CHAOS_REDIRECT: JSON.stringify([[smsc.port, links.smpp.port]]),
    NODE_OPTIONS: `${cli.env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(resolve(import.meta.dirname, 'redirect.mjs'))}`,
  };
  const stop = async (
    db: Db,
    children: Array<{ child: { exitCode: number | null; kill(s: NodeJS.Signals): boolean } }>,
  ) => {
    for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
    await db.close();
    for (const link of Object.values(links)) await link?.stop();
    await hooks.stop().catch(() => undefined);
    await carrier.stop();
    await smsc.stop();
    await cli.cleanup();
  };
  return { smsc, carrier, hooks, cli, links, envA, stop };
}

async function setUp(env: Record<string, string>, smscPort: number, size: PartitionSize) {
  const created = await runMensajero(
    [
      ...['accounts', 'create', '--email', 'partition@example.com', '--password', 'partition-password-1'],
      ...['--credits', String(size.total * CREDITS_PER_MESSAGE), '--json'],
    ],
    env,
  );
  expect(created.code, created.stderr).toBe(0);
  const added = await runMensajero(
    [
      ...['carriers', 'add', 'smpp', '--name', 'telcel', '--host', '127.0.0.1', '--port', String(smscPort)],
      ...['--system-id', 'acme', '--password', 'secret1', '--binds', String(BINDS)],
      ...['--throughput', String(size.smppThroughput)],
    ],
    env,
  );
  expect(added.code, added.stderr).toBe(0);
  // test/chaos/carrier.mjs hands numbers 52553… (country code first) to the routes (this SMSC), the others to the recording carrier.
  const route = await runMensajero(['routes', 'add', '--channel', 'sms', '--prefix', '', '--carriers', 'telcel'], env);
  expect(route.code, route.stderr).toBe(0);
  return created.json as { apikey: string; id: number };
}

/**
 * The partition scenario: a campaign of `size.total` (a third through the
 * SMSC, the rest through the recording carrier), requests alternated between
 * A and B; `beforeCutMs` after the last was accepted (or as soon as the
 * carriers have seen half of it), A's links fall silent for `cutMs`, then heal. Returns what the carriers, the database and the
 * processes saw.
 */
export async function partitionRun(cut: Cut, size: PartitionSize) {
  const c = await cluster(size);
  const db = await openDatabase(c.cli.env.DATABASE_URL);
  const children: Array<Awaited<ReturnType<typeof startServe>>> = [];
  try {
    const { apikey, id: accountId } = await setUp(c.cli.env, c.smsc.port, size);
    const a = await startServe(c.envA);
    children.push(a);
    const b = await startServe(c.cli.env);
    children.push(b);
    c.links.http = await new SilentLink({ host: '127.0.0.1', port: Number(new URL(a.base).port) }).start();
    const baseA = `http://127.0.0.1:${c.links.http.port}`;
    await eventually(async () => c.smsc.binds === BINDS, 30_000, 50);
    const post = async (base: string, path: string, body: unknown) => {
      const r = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { apikey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return r.json() as Promise<any>;
    };
    expect((await post(b.base, '/webhook/add', { url: c.hooks.url, status: '1' })).code).toBe('add_webhook_01');

    const references: string[] = [];
    const number = (i: number) => `55${i % 3 === 2 ? 3 : 1}${String(i).padStart(7, '0')}`;
    for (let i = 0, k = 0; i < size.total; i += size.perRequest, k++) {
      const numbers = Array.from({ length: Math.min(size.perRequest, size.total - i) }, (_, j) => number(i + j));
      const r = await post(k % 2 === 0 ? baseA : b.base, '/sms/send', { numbers: numbers.join(','), message: 'Hola' });
      expect(r.code).toBe('sms_11');
      references.push(...r.references.map((x: { reference: string }) => x.reference));
    }
    // The cut comes `beforeCutMs` after the last send was accepted, or earlier once the carriers have seen half the campaign.
    const handed = () => c.carrier.handOffs.size + c.smsc.received;
    await eventually(async () => handed() >= size.total / 2, size.beforeCutMs, 20).catch(() => undefined);

    const cutAt = Date.now();
    const silenced = cut === 'full' ? [c.links.db, c.links.smpp, c.links.carrier, c.links.http] : [c.links.db];
    for (const link of silenced) link.silence();
    const handedAtCut = handed();
    const inFlight = new Set(
      (
        await db.kysely
          .selectFrom('messages')
          .select('number')
          .where('stage', '=', 0)
          .where('claim_token', 'is not', null)
          .execute()
      ).map((m) => m.number),
    );
    const during = await duringTheCut(a.base, b.base, post, cutAt + size.cutMs);
    references.push(...during.references);
    for (const link of silenced) link.heal();
    const healAt = Date.now();

    const unsent = async () =>
      (await db.kysely.selectFrom('messages').select('id').where('stage', '=', 0).execute()).length;
    await eventually(async () => (await unsent()) === 0, 600_000, 200);
    // Time for whatever A still had queued to show up at a carrier.
    await sleep(Math.max(3000, size.leaseMs));

    const messages = await db.kysely
      .selectFrom('messages')
      .select(['id', 'number', 'price_units', 'stage', 'status'])
      .where('account_id', '=', accountId)
      .execute();
    const account = await db.kysely
      .selectFrom('accounts')
      .select('credits')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    const numberOf = new Map(messages.map((m) => [m.id, m.number]));
    const pidA = a.child.pid;
    const handOffs: HandOff[] = [
      ...c.carrier.batches.flatMap((x) =>
        x.ids.map((id) => ({
          number: numberOf.get(id) ?? `#${id}`,
          by: x.pid === pidA ? ('A' as const) : ('B' as const),
          at: x.at,
        })),
      ),
      ...c.smsc.arrivals.map((x) => ({
        number: x.destination,
        by: c.links.smpp.carried.has(x.peerPort) ? ('A' as const) : ('B' as const),
        at: x.at,
      })),
    ];
    const logs = a.output() + b.output();
    return {
      cut,
      size,
      cutAt,
      healAt,
      inFlight,
      handedAtCut,
      during,
      messages,
      references,
      credits: account.credits,
      initialCredits: size.total * CREDITS_PER_MESSAGE * 10_000,
      handOffs,
      maxBinds: c.smsc.maxBinds,
      hooks: c.hooks.references,
      deadlocks: logs
        .split('\n')
        .filter((l) => /deadlock/i.test(l))
        .map(deadlockLine),
    };
  } finally {
    await c.stop(db, children);
  }
}

/**
 * While A is cut: single sends to B for the same account, one every 250 ms,
 * each timed (B must answer every one); A's /readyz asked directly, as a check
 * on A's side of the network would, once its liveness check had time to run.
 */
async function duringTheCut(
  directA: string,
  baseB: string,
  post: (base: string, path: string, body: unknown) => Promise<any>,
  healAt: number,
) {
  const latencies: number[] = [];
  const failed: unknown[] = [];
  const references: string[] = [];
  const sends: Promise<void>[] = [];
  const readyz = (async () => {
    await sleep(1500);
    const asked = Date.now();
    const status = await fetch(`${directA}/readyz`, { signal: AbortSignal.timeout(1500) })
      .then((r) => r.status)
      .catch(() => 0);
    return { status, ms: Date.now() - asked };
  })();
  for (let i = 0; Date.now() < healAt; i++) {
    const start = Date.now();
    sends.push(
      post(baseB, '/sms/send', { numbers: `557${String(i).padStart(7, '0')}`, message: 'Hola' })
        .then((r) => {
          if (r.code !== 'sms_11') return void failed.push(r);
          latencies.push(Date.now() - start);
          references.push(...r.references.map((x: { reference: string }) => x.reference));
        })
        .catch((e: Error) => void failed.push(e.message)),
    );
    await sleep(250);
  }
  await Promise.all(sends);
  return { latencies, failed, references, readyz: await readyz };
}

/** A log line that reports a deadlock, shortened to what failed and where. */
function deadlockLine(line: string): string {
  try {
    const l = JSON.parse(line) as { msg?: string; job?: { kind?: string }; err?: { where?: string } };
    return [l.msg, l.job?.kind, l.err?.where].filter(Boolean).join(' / ');
  } catch {
    return line.slice(0, 200);
  }
}
