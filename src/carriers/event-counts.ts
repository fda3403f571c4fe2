import type { Executor } from '../db/engine.js';
import type { ConnectorStats } from './status.js';

/** What a connector counts at hand-off that `carriers stats` shows (the names of `carriers status`). */
export const EVENT_KINDS = ['throttled', 'refused', 'errors'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
export type EventCounts = Record<EventKind, number>;

export const EVENT_MINUTE_MS = 60_000;
/** Counts older than this are pruned: `carriers stats --since` reaches this far back for them. */
export const EVENT_COUNTS_KEEP_MS = 35 * 86_400_000;

type Row = { carrier: string; minute: number } & EventCounts;

/**
 * The increments of this process's connector counters since the last call,
 * as rows of the current minute. A connector's counters live in its stats
 * object (a rebuilt connector starts a new one at zero), so each object's
 * last seen values are kept beside it.
 */
export class EventCountDeltas {
  private readonly seen = new WeakMap<ConnectorStats, EventCounts>();

  take(connectors: Iterable<{ name: string; stats: ConnectorStats }>, now: number): Row[] {
    const minute = now - (now % EVENT_MINUTE_MS);
    const rows = new Map<string, Row>();
    for (const { name, stats } of connectors) {
      const last = this.seen.get(stats) ?? { throttled: 0, refused: 0, errors: 0 };
      const delta = Object.fromEntries(EVENT_KINDS.map((k) => [k, Math.max(0, stats[k] - last[k])])) as EventCounts;
      this.seen.set(stats, { throttled: stats.throttled, refused: stats.refused, errors: stats.errors });
      if (EVENT_KINDS.every((k) => delta[k] === 0)) continue;
      const row = rows.get(name) ?? { carrier: name, minute, throttled: 0, refused: 0, errors: 0 };
      for (const k of EVENT_KINDS) row[k] += delta[k];
      rows.set(name, row);
    }
    return [...rows.values()].sort((a, b) => (a.carrier < b.carrier ? -1 : 1));
  }
}

/** Adds the rows to the shared counts (in key order, so concurrent processes never wait on each other in a cycle). */
export async function addEventCounts(db: Executor, rows: Row[]): Promise<void> {
  for (const row of rows)
    await db
      .insertInto('carrier_event_counts')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['carrier', 'minute']).doUpdateSet((eb) => ({
          throttled: eb('carrier_event_counts.throttled', '+', eb.ref('excluded.throttled')),
          refused: eb('carrier_event_counts.refused', '+', eb.ref('excluded.refused')),
          errors: eb('carrier_event_counts.errors', '+', eb.ref('excluded.errors')),
        })),
      )
      .execute();
}

/** Every connector's counts of the minutes from the one holding `since`, across processes. */
export async function eventCountsSince(db: Executor, since: number): Promise<Map<string, EventCounts>> {
  const rows = await db
    .selectFrom('carrier_event_counts')
    .select((eb) => [
      'carrier',
      eb.fn.sum<number>('throttled').as('throttled'),
      eb.fn.sum<number>('refused').as('refused'),
      eb.fn.sum<number>('errors').as('errors'),
    ])
    .where('minute', '>=', since - (since % EVENT_MINUTE_MS))
    .groupBy('carrier')
    .execute();
  return new Map(
    rows.map((r) => [
      r.carrier,
      { throttled: Number(r.throttled), refused: Number(r.refused), errors: Number(r.errors) },
    ]),
  );
}

export async function pruneEventCounts(db: Executor, now: number): Promise<void> {
  await db
    .deleteFrom('carrier_event_counts')
    .where('minute', '<', now - EVENT_COUNTS_KEEP_MS)
    .execute();
}
