import type { BaseContext } from '../context.js';
import type { Executor } from '../db/engine.js';
import { listCarriers } from './store.js';
import { CLASS_ORDER, type LineWaiting } from './traffic-line.js';
import type { TrafficClass } from '../messaging/ports.js';

/** Counters one process keeps for one connector (summed over processes by `carriers status`). */
export interface ConnectorStats {
  binds: number;
  window_in_use: number;
  submitted: number;
  refused: number;
  throttled: number;
  errors: number;
  receipts: number;
  /** Receipts with no message id or no state, never applied (also in `carriers rejections`). */
  unreadable_receipts: number;
  replies: number;
  last_error: string | null;
  last_error_at: number | null;
  /** Messages waiting in its line, per traffic class, and since when the oldest waits (a connector with a line). */
  line?: LineWaiting;
}

export const emptyStats = (): ConnectorStats => ({
  binds: 0,
  window_in_use: 0,
  submitted: 0,
  refused: 0,
  throttled: 0,
  errors: 0,
  receipts: 0,
  unreadable_receipts: 0,
  replies: 0,
  last_error: null,
  last_error_at: null,
});

export type ConnectorState = 'bound' | 'connecting' | 'down' | 'disabled';

/** One running process's binds of a connector (`carriers status`): `process` is its lease holder (host:pid:tag). */
export interface ProcessBinds {
  process: string;
  state: string;
  binds: number;
}

/** A process's report older than this is ignored: that process stopped or lost the database. */
export const STATUS_FRESH_MS = 10_000;

/** What each process counts of a connector, summed across the deployment (`carriers status` prints them in this order). */
export const STATUS_COUNTERS = [
  'binds',
  'window_in_use',
  'submitted',
  'refused',
  'throttled',
  'errors',
  'receipts',
  'unreadable_receipts',
  'replies',
] as const;

/**
 * Every connector's state across the deployment, from what each running
 * process reported in the last STATUS_FRESH_MS: bound when any process holds
 * a bind, connecting when any is trying, down otherwise (or when no process
 * runs), disabled when the operator disabled it.
 */
export async function carrierStatus(ctx: Pick<BaseContext, 'db'>): Promise<
  Array<
    {
      name: string;
      type: string;
      state: ConnectorState;
      processes: number;
      /** Each running process's binds of it. */
      binds_per_process: ProcessBinds[];
      /** Its `--binds`, the sessions all processes together may hold (a kind that binds: SMPP), else null. */
      binds_setting: number | null;
      /** Per traffic class, the messages waiting in its lines (every process) and the age of the oldest, in seconds. */
      queues: LineQueues;
    } & Omit<ConnectorStats, 'line'>
  >
> {
  const carriers = await listCarriers(ctx.db.kysely);
  const now = Date.now();
  const rows = await ctx.db.kysely
    .selectFrom('carrier_process_status')
    .selectAll()
    .where('updated_at', '>', now - STATUS_FRESH_MS)
    .execute();
  return carriers.map((c) => {
    const mine = rows.filter((r) => r.carrier === c.name);
    const total = emptyStats();
    const perProcess: ProcessBinds[] = [];
    const lines: LineWaiting[] = [];
    for (const r of mine) {
      const s = JSON.parse(r.stats) as ConnectorStats;
      if (s.line) lines.push(s.line);
      perProcess.push({ process: r.holder, state: r.state, binds: s.binds ?? 0 });
      for (const k of STATUS_COUNTERS) total[k] += s[k] ?? 0;
      if (s.last_error && (total.last_error_at ?? 0) <= (s.last_error_at ?? 0)) {
        total.last_error = s.last_error;
        total.last_error_at = s.last_error_at;
      }
    }
    const states = new Set(mine.map((r) => r.state));
    const state: ConnectorState =
      c.enabled !== 1 ? 'disabled' : states.has('bound') ? 'bound' : states.has('connecting') ? 'connecting' : 'down';
    perProcess.sort((a, b) => b.binds - a.binds || a.process.localeCompare(b.process));
    return {
      name: c.name,
      type: c.type,
      state,
      processes: mine.length,
      ...total,
      binds_per_process: perProcess,
      binds_setting: bindsSetting(c),
      queues: queuesOf(lines, now),
    };
  });
}

export type LineQueues = Record<TrafficClass, { waiting: number; oldest_seconds: number | null }>;

/** The lines of every process together: messages waiting per class, and how long the oldest of them has waited. */
export function queuesOf(lines: LineWaiting[], now: number): LineQueues {
  const out = {} as LineQueues;
  for (const c of CLASS_ORDER) {
    let waiting = 0;
    let oldest: number | null = null;
    for (const l of lines) {
      waiting += l[c]?.waiting ?? 0;
      const at = l[c]?.oldest_at ?? null;
      if (at !== null && (oldest === null || at < oldest)) oldest = at;
    }
    out[c] = { waiting, oldest_seconds: oldest === null ? null : Math.max(0, Math.round((now - oldest) / 100) / 10) };
  }
  return out;
}

/** The binds a connector of a kind that binds may hold across the deployment (its `--binds`), else null. */
function bindsSetting(c: { settings: string }): number | null {
  // Only the kinds that bind (SMPP) have `binds` among their settings.
  const binds = (JSON.parse(c.settings) as { binds?: unknown }).binds;
  return typeof binds === 'number' ? binds : null;
}

/** This process's state and counters of each connector, for `carriers status` and the sharing of binds. */
export async function writeProcessStatus(
  db: Executor,
  rows: Array<{ carrier: string; holder: string; state: string; stats: string; updated_at: number }>,
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('carrier_process_status')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['carrier', 'holder']).doUpdateSet((eb) => ({
        state: eb.ref('excluded.state'),
        stats: eb.ref('excluded.stats'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}

/** Processes that reported in the last STATUS_FRESH_MS (this one included): binds are shared among them. */
export async function liveProcesses(db: Executor): Promise<number> {
  const fresh = Date.now() - STATUS_FRESH_MS;
  const rows = await db
    .selectFrom('carrier_process_status')
    .select('holder')
    .distinct()
    .where('updated_at', '>', fresh)
    .execute();
  return Math.max(1, rows.length);
}

/** Connectors another running process reported bound (a bind up there): not down, though this process has no bind. */
export async function boundInOtherProcesses(db: Executor, holder: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('carrier_process_status')
    .select('carrier')
    .distinct()
    .where('updated_at', '>', Date.now() - STATUS_FRESH_MS)
    .where('state', '=', 'bound')
    .where('holder', '!=', holder)
    .execute();
  return new Set(rows.map((r) => r.carrier));
}

/** A stopping process's reports, withdrawn. */
export async function withdrawProcessStatus(db: Executor, holder: string): Promise<void> {
  await db.deleteFrom('carrier_process_status').where('holder', '=', holder).execute();
}
