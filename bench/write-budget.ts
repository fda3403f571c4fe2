import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import type pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { startService, type RunningService } from '../src/app/serve.js';
import { insertAccount } from '../src/accounts/store.js';
import { toUnits } from '../src/accounts/credits.js';
import { sendMerged } from '../src/messaging/send.js';
import { InlineDispatch as InlineHandOff } from '../src/messaging/inline-dispatch.js';
import type { InlineClaim, SendRequest as SubmitRequest } from '../src/messaging/types.js';
import { SimulatorDriver } from '../src/carriers/simulator/driver.js';
import { benchPostgresUrl, dropSchema, fmt, pgClient } from './lib.js';
import { StatementCounter, type IndexColumns, type StatementTally } from './statement-counter.js';
import { pgIndexColumns, pgTableStats, type PgTableStats } from './pg-stats.js';

/** Messages per engine, sent as single-recipient requests in waves of WAVE concurrent sends. */
const MESSAGES = Number(process.env.BENCH_WRITE_BUDGET_MESSAGES ?? 2_000);
const WAVE = 50;

const PHASES = ['send (accepted, answered)', 'hand-off (claim)', 'sent status', 'final receipt'] as const;

interface Phase {
  name: string;
  tally: StatementTally;
  /** PostgreSQL only: the statistics collector's deltas of each table. */
  pg?: Map<string, PgTableStats>;
}

/**
 * The write budget of a single-recipient send: statements, rows and index
 * entries per message for the send itself and each later event, measured on
 * the real code path (group commit, inline hand-off, simulator, receipt job)
 * phase by phase. Each phase runs for every message before the next starts,
 * so each is counted apart: the simulator's submit waits at a gate until every
 * message is claimed, and the worker starts only once every message is sent.
 */
export async function benchWriteBudget(): Promise<string> {
  const sections = [
    '## Write budget of a single-recipient send',
    '',
    `${fmt(MESSAGES)} single-recipient sends in waves of ${WAVE} concurrent requests (one group commit and one hand-off round per wave), then the simulator's receipts (SIMULATOR_DLR_DELAY_MS=0) through the worker. Figures per message. Statements: every statement sent to the engine (BEGIN, SAVEPOINT and COMMIT included). Rows: counted from the rows each write statement touched. Index entries: SQLite, each insert or delete in every index of its table and each update in the indexes over a column it sets; PostgreSQL, from pg_stat_user_tables, (inserts + updates − HOT updates) × the indexes of the table.`,
    '',
    await budget('sqlite'),
  ];
  const url = benchPostgresUrl();
  sections.push(
    url ? await budget('postgres', url) : 'PostgreSQL: skipped (set BENCH_DATABASE_URL or TEST_DATABASE_URL).\n',
  );
  return sections.join('\n');
}

async function budget(engine: 'sqlite' | 'postgres', url?: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-bench-budget-'));
  const pgSchema = url ? `bench_${randomBytes(6).toString('hex')}` : undefined;
  const config = loadConfig({
    DATABASE_URL: url ?? `sqlite:${join(dir, 'budget.db')}`,
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    SIMULATOR_DLR_DELAY_MS: '0',
    WORKER_POLL_MS: '600000',
  } as NodeJS.ProcessEnv);
  const service = await startService(config, {
    log: pino({ level: 'silent' }),
    listen: false,
    worker: false,
    pgSchema,
  });
  const stats = url && pgSchema ? await pgClient(url, pgSchema) : null;
  try {
    const phases = await measure(service, stats, pgSchema);
    return render(engine, phases);
  } finally {
    await stats?.end();
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
    if (url && pgSchema) await dropSchema(url, pgSchema);
  }
}

async function measure(service: RunningService, stats: pg.Client | null, pgSchema?: string): Promise<Phase[]> {
  const ctx = service.ctx;
  const { account } = await insertAccount(ctx.db.kysely, ctx.secrets.keyEncryption, {
    email: 'budget@example.com',
    passwordHash: 'x',
    credits: toUnits(1_000_000),
  });
  const indexes = stats && pgSchema ? await pgIndexColumns(stats, pgSchema) : await sqliteIndexColumns(service);
  const counter = new StatementCounter(indexes, (client) => client === stats);
  const gate = new SubmitGate();
  const phases: Phase[] = [];
  // The set-up's writes (the account) are reported a second or more later: not the send's.
  if (stats) await new Promise((r) => setTimeout(r, 2000));
  let before = stats && pgSchema ? await pgTableStats(stats, pgSchema) : undefined;
  const close = async (name: string) => {
    const tally = counter.take();
    if (!stats || !pgSchema || !before) return void phases.push({ name, tally });
    const after = await settledStats(stats, pgSchema, before, tally);
    phases.push({ name, tally, pg: deltas(before, after) });
    before = after;
  };
  counter.install();
  gate.install();
  try {
    // Each wave is one round of its own hand-off, as concurrent sends of one turn of the event loop are.
    const waves: Array<{ handOff: InlineHandOff; sends: Sent[] }> = [];
    for (let i = 0; i < MESSAGES; i += WAVE) {
      const handOff = new InlineHandOff(ctx);
      waves.push({ handOff, sends: await sendWave(service, account.id, i, handOff) });
    }
    await close(PHASES[0]);
    for (const { handOff, sends } of waves) for (const s of sends) handOff.add(s.campaignId, s.messageIds, s.claimedBy);
    await gate.reached(MESSAGES);
    await close(PHASES[1]);
    gate.open();
    await until(
      async () => (await countWhere(service, 'stage = 1')) === MESSAGES && (await dispatchJobs(service)) === 0,
    );
    await close(PHASES[2]);
    ctx.worker.start();
    ctx.worker.nudge();
    await until(async () => (await countWhere(service, 'stage = 2')) === MESSAGES);
    await close(PHASES[3]);
  } finally {
    gate.uninstall();
    counter.uninstall();
  }
  return phases;
}

/** WAVE concurrent single-recipient sends, each written as POST /sms/send writes it (merged: src/messaging/send.ts). */
async function sendWave(service: RunningService, accountId: number, first: number, handOff: InlineHandOff) {
  const ctx = service.ctx;
  return Promise.all(
    Array.from({ length: Math.min(WAVE, MESSAGES - first) }, async (_, k): Promise<Sent> => {
      const claimedBy = handOff.claim();
      const req: SubmitRequest = {
        accountId,
        channel: 'sms',
        source: 'sms',
        text: 'Hola',
        recipients: [{ countryCode: '52', number: `52${5510000000 + first + k}` }],
      };
      const r = await sendMerged(ctx, { req, claim: claimedBy });
      return { campaignId: r.campaignId, messageIds: r.messageIds, claimedBy };
    }),
  );
}

interface Sent {
  campaignId: number;
  messageIds: number[];
  claimedBy: InlineClaim;
}

/** Holds the simulator's submit until opened, counting the messages that reached it (all claimed by then). */
class SubmitGate {
  private arrived = 0;
  private release!: () => void;
  private readonly opened = new Promise<void>((r) => (this.release = r));
  private readonly submit = SimulatorDriver.prototype.submit;

  install(): void {
    const submit = this.submit;
    const arrive = (n: number) => (this.arrived += n);
    const opened = this.opened;
    SimulatorDriver.prototype.submit = async function (this: SimulatorDriver, batch) {
      arrive(batch.length);
      await opened;
      return submit.call(this, batch);
    };
  }

  uninstall(): void {
    SimulatorDriver.prototype.submit = this.submit;
    this.release();
  }

  reached(n: number): Promise<void> {
    return until(async () => this.arrived >= n);
  }

  open(): void {
    this.release();
  }
}

async function until(done: () => Promise<boolean>): Promise<void> {
  const limit = performance.now() + 120_000;
  while (!(await done())) {
    if (performance.now() > limit) throw new Error('write budget: a phase did not finish in 120 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

// The bench's own reads go through the stats client on PostgreSQL (not counted) and are reads on SQLite (no rows written).
async function countWhere(service: RunningService, where: 'stage = 1' | 'stage = 2'): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`/* bench */ select count(*) as n from messages where ${sql.raw(where)}`.execute(service.ctx.db.kysely);
  return Number(rows[0].n);
}

async function dispatchJobs(service: RunningService): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`/* bench */ select count(*) as n from jobs where kind = 'messaging.dispatch'`.execute(service.ctx.db.kysely);
  return Number(rows[0].n);
}

async function sqliteIndexColumns(service: RunningService): Promise<IndexColumns> {
  const { rows } = await sql<{ tbl: string; idx: string; col: string }>`
    select m.name as tbl, il.name as idx, ii.name as col
    from sqlite_master m, pragma_index_list(m.name) il, pragma_index_info(il.name) ii
    where m.type = 'table'`.execute(service.ctx.db.kysely);
  const byIndex = new Map<string, { tbl: string; cols: Set<string> }>();
  for (const r of rows) {
    const entry = byIndex.get(r.idx) ?? { tbl: r.tbl, cols: new Set<string>() };
    entry.cols.add(r.col);
    byIndex.set(r.idx, entry);
  }
  const out: IndexColumns = new Map();
  for (const { tbl, cols } of byIndex.values()) out.set(tbl, [...(out.get(tbl) ?? []), cols]);
  return out;
}

/**
 * Backends report their counters to the statistics collector once idle for a
 * second, or ten seconds later when another backend held the table's entry:
 * waits until every table shows at least the rows the statements wrote.
 */
async function settledStats(
  stats: pg.Client,
  schema: string,
  before: Map<string, PgTableStats>,
  tally: StatementTally,
): Promise<Map<string, PgTableStats>> {
  const limit = performance.now() + 30_000;
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const after = await pgTableStats(stats, schema);
    const d = deltas(before, after);
    const reported = [...tally.tables].every(([table, w]) => {
      const s = d.get(table);
      return s !== undefined && s.ins + s.upd + s.del >= w.inserted + w.updated + w.deleted;
    });
    if (reported || performance.now() > limit) return after;
  }
}

function deltas(before: Map<string, PgTableStats>, after: Map<string, PgTableStats>): Map<string, PgTableStats> {
  const out = new Map<string, PgTableStats>();
  for (const [table, a] of after) {
    const b = before.get(table);
    const d: PgTableStats = {
      ins: a.ins - (b?.ins ?? 0),
      upd: a.upd - (b?.upd ?? 0),
      hot: a.hot - (b?.hot ?? 0),
      del: a.del - (b?.del ?? 0),
      idxScans: a.idxScans - (b?.idxScans ?? 0),
      indexes: a.indexes,
    };
    if (d.ins || d.upd || d.del) out.set(table, d);
  }
  return out;
}

const per = (n: number, digits = 2) => fmt(n / MESSAGES, digits);

function render(engine: 'sqlite' | 'postgres', phases: Phase[]): string {
  const head =
    engine === 'postgres'
      ? [
          '| event | statements | rows inserted | rows updated (HOT) | rows deleted | index entries written | index scans | writes by table |',
          '|---|---:|---:|---:|---:|---:|---:|---|',
        ]
      : [
          '| event | statements | rows inserted | rows updated | rows deleted | index entries written | writes by table |',
          '|---|---:|---:|---:|---:|---:|---|',
        ];
  const rows = phases.map((p) => (p.pg ? pgRow(p.name, p.tally, p.pg) : sqliteRow(p.name, p.tally)));
  for (const p of phases)
    for (const [shape, n] of [...p.tally.shapes].sort((a, b) => b[1] - a[1]))
      process.stderr.write(`${engine} ${p.name}: ${(n / MESSAGES).toFixed(2)}  ${shape}\n`);
  const all: Phase = {
    name: '**total**',
    tally: {
      statements: phases.reduce((a, p) => a + p.tally.statements, 0),
      shapes: new Map(),
      tables: sumTables(phases),
    },
    pg: engine === 'postgres' ? sumPg(phases) : undefined,
  };
  rows.push(all.pg ? pgRow(all.name, all.tally, all.pg) : sqliteRow(all.name, all.tally));
  return [`### ${engine === 'postgres' ? 'PostgreSQL' : 'SQLite'}`, '', ...head, ...rows, ''].join('\n');
}

function sqliteRow(name: string, t: StatementTally): string {
  const sum = (k: 'inserted' | 'updated' | 'deleted' | 'indexEntries') =>
    [...t.tables.values()].reduce((a, w) => a + w[k], 0);
  const byTable = [...t.tables]
    .map(([table, w]) => `${table} ${short(w.inserted, 'i')}${short(w.updated, 'u')}${short(w.deleted, 'd')}`.trim())
    .join(', ');
  return `| ${name} | ${per(t.statements)} | ${per(sum('inserted'))} | ${per(sum('updated'))} | ${per(sum('deleted'))} | ${per(sum('indexEntries'))} | ${byTable} |`;
}

function pgRow(name: string, t: StatementTally, d: Map<string, PgTableStats>): string {
  const v = [...d.values()];
  const sum = (f: (s: PgTableStats) => number) => v.reduce((a, s) => a + f(s), 0);
  const byTable = [...d]
    .map(([table, s]) => `${table} ${short(s.ins, 'i')}${short(s.upd, 'u')}${short(s.del, 'd')}`.trim())
    .join(', ');
  return `| ${name} | ${per(t.statements)} | ${per(sum((s) => s.ins))} | ${per(sum((s) => s.upd))} (${per(sum((s) => s.hot))}) | ${per(sum((s) => s.del))} | ${per(sum((s) => (s.ins + s.upd - s.hot) * s.indexes))} | ${per(sum((s) => s.idxScans))} | ${byTable} |`;
}

const short = (n: number, tag: string) => (n > 0 ? `${tag}${per(n)} ` : '');

function sumTables(phases: Phase[]) {
  const out = new Map<string, { inserted: number; updated: number; deleted: number; indexEntries: number }>();
  for (const p of phases)
    for (const [table, w] of p.tally.tables) {
      const o = out.get(table) ?? { inserted: 0, updated: 0, deleted: 0, indexEntries: 0 };
      out.set(table, {
        inserted: o.inserted + w.inserted,
        updated: o.updated + w.updated,
        deleted: o.deleted + w.deleted,
        indexEntries: o.indexEntries + w.indexEntries,
      });
    }
  return out;
}

function sumPg(phases: Phase[]): Map<string, PgTableStats> {
  const out = new Map<string, PgTableStats>();
  for (const p of phases)
    for (const [table, s] of p.pg ?? []) {
      const o = out.get(table) ?? { ins: 0, upd: 0, hot: 0, del: 0, idxScans: 0, indexes: s.indexes };
      out.set(table, {
        ins: o.ins + s.ins,
        upd: o.upd + s.upd,
        hot: o.hot + s.hot,
        del: o.del + s.del,
        idxScans: o.idxScans + s.idxScans,
        indexes: s.indexes,
      });
    }
  return out;
}
