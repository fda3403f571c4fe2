import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/app/serve.js';
import { insertAccount } from '../src/accounts/store.js';
import { toUnits } from '../src/accounts/credits.js';
import { openDatabase } from '../src/db/engine.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { timeOrderedId } from '../src/lib/ids.js';
import { writeMessages as submitMessages } from '../src/messaging/write.js';
import { fmt, load, startBenchService, type BenchService } from './lib.js';
import { kannelInstalled, startKannel, type Kannel } from './kannel.js';

const RECIPIENTS = 500;
const numbers = Array.from({ length: RECIPIENTS }, (_, i) => String(5510000000 + i));

/**
 * 10(a): concurrent 500-recipient POST /sms/send on SQLite (validation,
 * debit, campaign, 500 message rows and the dispatch job in one transaction),
 * in recipients accepted per second, against a raw better-sqlite3 loop
 * inserting the same message rows 500 per transaction into the same schema.
 * The worker is off so that dispatch (measured in 10(b)) does not share the CPU.
 */
export async function sendVsRawInsert(): Promise<string> {
  const { perSecond: baseline, perCpuSecond: baselinePerCpu } = await rawInsertRowsPerSecond(100_000);
  const svc = await startBenchService({ WORKER_CONCURRENCY: '0' });
  const body = JSON.stringify({
    numbers: numbers.join(','),
    message: 'Promocion de temporada: 20% en toda la tienda hasta el domingo. Responde BAJA para no recibir mas.',
  });
  const cpu0 = process.cpuUsage();
  const result = await load({
    url: `${svc.base}/sms/send`,
    headers: { apikey: svc.apikey, 'content-type': 'application/json' },
    body,
    connections: 8,
    durationSec: 10,
  });
  const serverCpuSeconds = cpuSeconds(process.cpuUsage(cpu0));
  const accepted = Number(
    (
      await svc.service.ctx.db.kysely
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
  await svc.close();
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`/sms/send answered ${result.non2xx} non-2xx and ${result.errors} errors`);
  const recipientsPerSecond = result.requestsPerSecond * RECIPIENTS;
  const ratio = recipientsPerSecond / baseline;
  const perCpu = accepted / serverCpuSeconds;
  return [
    '## SMS 10(a): 500-recipient /sms/send vs raw SQLite inserts',
    '',
    '8 connections, 10 s, autocannon in its own process; each request is 500 recipients, one transaction. Worker off (dispatch is 10(b)).',
    '',
    '| measure | rows or recipients/s | per CPU-second of the process | p50 ms | p99 ms |',
    '|---|---:|---:|---:|---:|',
    `| raw better-sqlite3 insert loop, 500 rows per transaction (baseline) | ${fmt(baseline)} | ${fmt(baselinePerCpu)} | | |`,
    `| POST /sms/send, 500 recipients per request | ${fmt(recipientsPerSecond)} | ${fmt(perCpu)} | ${result.p50Ms} | ${result.p99Ms} |`,
    '',
    `${fmt(accepted)} messages accepted. Ratio ÷ baseline: **${fmt(ratio, 2)}** (target ≥ 0.25); recipients/s target ≥ 50,000.`,
    'The per-CPU-second column divides by the CPU time this process actually got (server only; autocannon runs apart), which a shared, loaded machine does not bias.',
    '',
  ].join('\n');
}

/** The same message rows /sms/send writes, inserted by a prepared statement in 500-row transactions. */
async function rawInsertRowsPerSecond(total: number): Promise<{ perSecond: number; perCpuSecond: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-bench-raw-'));
  const file = join(dir, 'raw.db');
  const db = await openDatabase(`sqlite:${file}`);
  await migrateToLatest(db);
  await db.close();
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  const cols = [
    'account_id',
    'campaign_id',
    'reference',
    'channel',
    'country_code',
    'number',
    'text',
    'sender',
    'flash',
    'sandbox',
    'extra_params',
    'meta',
    'price_units',
    'stage',
    'status',
    'dlr_code',
    'carrier',
    'carrier_id',
    'error',
    'scheduled_at',
    'created_at',
    'sent_at',
    'dlr_at',
  ];
  const insert = sqlite.prepare(`insert into messages (${cols.join(',')}) values (${cols.map(() => '?').join(',')})`);
  const text = 'Promocion de temporada: 20% en toda la tienda hasta el domingo. Responde BAJA para no recibir mas.';
  const batch = sqlite.transaction((campaign: number) => {
    const now = Date.now();
    for (const n of numbers)
      insert.run(
        1,
        campaign,
        timeOrderedId(),
        'sms',
        '52',
        `52${n}`,
        text,
        null,
        0,
        0,
        null,
        null,
        10_000,
        0,
        'queued',
        null,
        null,
        null,
        null,
        null,
        now,
        null,
        null,
      );
  });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let c = 0; c < total / RECIPIENTS; c++) batch(c);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(process.cpuUsage(cpu0));
  sqlite.close();
  rmSync(dir, { recursive: true, force: true });
  return { perSecond: total / seconds, perCpuSecond: total / cpu };
}

const cpuSeconds = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;

/**
 * 10(b): messages already queued (100 campaigns of 500) drained by the worker
 * through the simulated carrier to a final delivery status (dispatch, carrier
 * report job, status update and confirmation event), in messages per second.
 */
export async function simulatorDrain(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-bench-drain-'));
  const config = loadConfig({
    DATABASE_URL: `sqlite:${join(dir, 'drain.db')}`,
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    SIMULATOR_DLR_DELAY_MS: '0',
    WORKER_POLL_MS: '20',
  } as NodeJS.ProcessEnv);
  const service = await startService(config, { log: pino({ level: 'silent' }), listen: false, worker: false });
  const ctx = service.ctx;
  const { account } = await insertAccount(ctx.db.kysely, ctx.secrets.keyEncryption, {
    email: 'drain@example.com',
    passwordHash: 'x',
    credits: toUnits(1_000_000),
  });
  const campaigns = 100;
  for (let c = 0; c < campaigns; c++) {
    await ctx.db.kysely.transaction().execute((trx) =>
      submitMessages(trx, ctx, {
        accountId: account.id,
        channel: 'sms',
        source: 'sms',
        text: 'Hola',
        recipients: numbers.map((n) => ({ countryCode: '52', number: `52${n}` })),
      }),
    );
  }
  const total = campaigns * RECIPIENTS;
  const pending = async () =>
    Number(
      (
        await ctx.db.kysely
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('stage', '<', 2)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  ctx.worker.start();
  while ((await pending()) > 0) {
    if (performance.now() - t0 > 120_000) throw new Error('drain did not finish in 120 s');
    await new Promise((r) => setTimeout(r, 25));
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(process.cpuUsage(cpu0));
  const delivered = Number(
    (
      await ctx.db.kysely
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '=', 'delivered')
        .executeTakeFirstOrThrow()
    ).n,
  );
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
  return [
    '## SMS 10(b): simulator draining queued messages',
    '',
    `${fmt(total)} queued messages (100 campaigns of 500), SQLite, SIMULATOR_DLR_DELAY_MS=0, default pacing (SIMULATOR_MESSAGES_PER_SECOND=${config.SIMULATOR_MESSAGES_PER_SECOND}).`,
    '',
    '| measure | value |',
    '|---|---:|',
    `| time to a final status for all | ${fmt(seconds, 2)} s |`,
    `| delivered | ${fmt(delivered)} |`,
    `| messages/s | **${fmt(total / seconds)}** (target ≥ 5,000) |`,
    `| messages per CPU-second of the process | ${fmt(total / cpu)} |`,
    '',
  ].join('\n');
}

/** A round's figures: messages accepted per second during the load, and delivered per second until the last one was. */
interface Round {
  accepted: number;
  delivered: number;
  /** Messages delivered per CPU-second of the server processes (Mensajero: this process; Kannel: bearerbox + smsbox). */
  perCpu: number;
  p50Ms: number;
  p99Ms: number;
}

const ROUND_SECONDS = 5;
const ROUNDS = 3;
const CONNECTIONS = 50;

async function untilDrained(what: string, remaining: () => Promise<number>): Promise<void> {
  const until = performance.now() + 120_000;
  while ((await remaining()) > 0) {
    if (performance.now() > until) throw new Error(`${what} did not drain in 120 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** One load round against our POST /sms/send, then the wait until every message has its delivery report from the simulator. */
async function ourRound(svc: BenchService, recipients: string[]): Promise<Round> {
  const db = svc.service.ctx.db.kysely;
  const count = async (undelivered: boolean) =>
    Number(
      (
        await (undelivered ? db.selectFrom('messages').where('stage', '<', 2) : db.selectFrom('messages'))
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const before = await count(false);
  const body = JSON.stringify({ numbers: recipients.join(','), message: 'Hola' });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await load({
    url: `${svc.base}/sms/send`,
    headers: { apikey: svc.apikey, 'content-type': 'application/json' },
    body,
    connections: CONNECTIONS,
    durationSec: ROUND_SECONDS,
  });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`/sms/send answered ${r.non2xx} non-2xx and ${r.errors} errors`);
  const loadSeconds = (performance.now() - t0) / 1000;
  await untilDrained('our sends', () => count(true));
  const messages = (await count(false)) - before;
  const seconds = (performance.now() - t0) / 1000;
  return {
    accepted: messages / loadSeconds,
    delivered: messages / seconds,
    perCpu: messages / cpuSeconds(process.cpuUsage(cpu0)),
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
  };
}

/** The same round against Kannel's sendsms, until bearerbox has handed every message to fakesmsc. */
async function kannelRound(kannel: Kannel, recipients: string[]): Promise<Round> {
  const before = (await kannel.sent()).sent;
  const cpu0 = kannel.cpuSeconds();
  const t0 = performance.now();
  const r = await load({
    url: `${kannel.sendsmsUrl}&to=${encodeURIComponent(recipients.join(' '))}`,
    method: 'GET',
    connections: CONNECTIONS,
    durationSec: ROUND_SECONDS,
  });
  if (r.non2xx > 0 || r.errors > 0)
    throw new Error(`Kannel sendsms answered ${r.non2xx} non-2xx and ${r.errors} errors`);
  const loadSeconds = (performance.now() - t0) / 1000;
  const messages = (r.ok ?? 0) * recipients.length;
  await untilDrained('Kannel', async () => {
    const s = await kannel.sent();
    return s.queued + Math.max(0, before + messages - s.sent);
  });
  const seconds = (performance.now() - t0) / 1000;
  return {
    accepted: messages / loadSeconds,
    delivered: messages / seconds,
    perCpu: messages / (kannel.cpuSeconds() - cpu0),
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
  };
}

const mean = (rounds: Round[], k: keyof Round) => rounds.reduce((a, r) => a + r[k], 0) / rounds.length;

/**
 * Mensajero against Kannel (bearerbox + smsbox + fakesmsc) as the peer, with
 * one and with 500 recipients per request, in interleaved rounds of the same
 * load; both counted until every message reached the (fake) carrier.
 */
export async function sendVsKannel(): Promise<string> {
  const head = [
    '## SMS 10(c): single-recipient and 500-recipient sends vs Kannel',
    '',
    `${CONNECTIONS} connections, ${ROUND_SECONDS} s per round, ${ROUNDS} interleaved rounds per system and size, autocannon in its own process. Mensajero: POST /sms/send on SQLite, worker on, simulator with SIMULATOR_DLR_DELAY_MS=0, counted until every message has its delivery report. Kannel: GET /cgi-bin/sendsms (500 numbers space-separated in \`to\`), counted until bearerbox has handed every message to fakesmsc; its message store is on (\`store-type = file\`).`,
    '',
  ];
  const kannel = kannelInstalled() ? await startKannel() : null;
  const svc = await startBenchService({ SIMULATOR_DLR_DELAY_MS: '0', WORKER_POLL_MS: '20' });
  const sizes: Array<[string, string[], number]> = [
    ['1 recipient per request', [numbers[0]], 0.5],
    ['500 recipients per request', numbers, 1.0],
  ];
  const rows: string[] = [];
  try {
    for (const [label, recipients, target] of sizes) {
      const ours: Round[] = [];
      const theirs: Round[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        ours.push(await ourRound(svc, recipients));
        if (kannel) theirs.push(await kannelRound(kannel, recipients));
      }
      const row = (system: string, r: Round[]) =>
        `| ${system}, ${label} | ${fmt(mean(r, 'accepted'))} | ${fmt(mean(r, 'delivered'))} | ${fmt(mean(r, 'perCpu'))} | ${fmt(mean(r, 'p50Ms'))} | ${fmt(mean(r, 'p99Ms'))} |`;
      rows.push(row('Mensajero', ours) + ' |');
      if (kannel) {
        const ratio = (k: keyof Round) => fmt(mean(ours, k) / mean(theirs, k), 2);
        rows.push(
          `${row('Kannel', theirs)} **${ratio('delivered')}** (accepted ${ratio('accepted')}, per CPU-second ${ratio('perCpu')}; target ≥ ${fmt(target, 1)}) |`,
        );
      }
    }
  } finally {
    kannel?.stop();
    await svc.close();
  }
  return [
    ...head,
    '| system | accepted msg/s | delivered msg/s | delivered per CPU-second | p50 ms | p99 ms | Mensajero ÷ Kannel, delivered msg/s |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    kannel
      ? 'Each figure is the mean of its rounds; delivered msg/s counts from the start of the load to the last message reaching the carrier. Per CPU-second divides by the CPU time the server processes got (Mensajero: this process, which also runs the simulator; Kannel: bearerbox + smsbox, fakesmsc apart), which a loaded machine does not bias. Kannel runs with its message store on (`store-type = file`), as Mensajero commits each message before answering.'
      : 'Kannel comparison skipped: bearerbox is not installed (apt-get install kannel kannel-extras).',
    '',
  ].join('\n');
}

export async function benchSms(): Promise<string> {
  return (await sendVsRawInsert()) + '\n' + (await simulatorDrain()) + '\n' + (await sendVsKannel());
}
