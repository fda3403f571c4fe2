import type { Selectable } from 'kysely';
import type { DbAndConfig } from '../context.js';
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { EventsTable } from './tables.js';
import type { HttpAnswer } from '../outbound/http.js';
import type { WebhookMetrics } from './metrics.js';
import { MAX_RETRIES, retryDelayMs } from '../outbound/schedule.js';
import { clearEndpointHealth, recordEndpointHealth, type HealthContext } from './endpoint-health.js';
import { completeHeldJobs, rescheduleHeldJob, type HeldJob } from '../jobs/held-jobs.js';
import { compiledOnce, prepared } from '../db/prepared.js';

export interface AttemptOutcome extends HttpAnswer {
  method: string;
  delivered: boolean;
}

/** An attempt's move of its event, if nobody moved it since it was read: one statement per attempt, compiled once. */
const moveEventRow = prepared<
  {
    id: number;
    attemptsBefore: number;
    state: 'delivered' | 'failed' | 'pending';
    attempts: number;
    deliveredAt: number | null;
    nextAttemptAt: number | null;
    lastStatus: number | null;
    lastError: string | null;
  },
  never
>((db, slot) =>
  db
    .updateTable('events')
    .set({
      state: slot('state'),
      attempts: slot('attempts'),
      delivered_at: slot('deliveredAt'),
      next_attempt_at: slot('nextAttemptAt'),
      last_status: slot('lastStatus'),
      last_error: slot('lastError'),
    })
    .where('id', '=', slot('id'))
    .where('state', '=', 'pending')
    .where('attempts', '=', slot('attemptsBefore')),
);

const ATTEMPTS_PER_INSERT = 32;

/** Attempt rows (8 values each, in the order below), compiled once per number of rows. */
const insertAttempts = compiledOnce((db, ...values: Array<number | string | null>) =>
  db.insertInto('event_attempts').values(
    Array.from({ length: values.length / 8 }, (_, row) => {
      const v = values.slice(row * 8, row * 8 + 8);
      return {
        event_id: v[0] as number,
        account_id: v[1] as number,
        attempted_at: v[2] as number,
        url: v[3] as string,
        method: v[4] as string,
        http_status: v[5] as number | null,
        duration_ms: v[6] as number,
        error: v[7] as string | null,
      };
    }),
  ),
);

/** The shortest time between the starts of two groups written back to back. */
const GROUP_WINDOW_MS = 4;

/** What became of one event's turn: what the database must record. */
export type Settlement =
  /** Nothing to do: the event is gone or no longer pending. */
  | { kind: 'none' }
  /** Ends without an attempt: the webhook was deleted (cancelled) or disabled (not_delivered). */
  | { kind: 'close'; eventId: number; state: 'cancelled' | 'not_delivered' }
  /** Not attempted now (back-off, busy slots, a retry not yet due): the job waits `delayMs`. */
  | { kind: 'defer'; delayMs: number; reason: string }
  | { kind: 'attempt'; event: Selectable<EventsTable>; url: string; outcome: AttemptOutcome; at: number };

/** The event's move: whether this attempt moved it (not cancelled or redelivered meanwhile), and the delay before its next turn. */
interface Moved {
  moved: boolean;
  retryIn: number | null;
}

interface Pending {
  settlement: Settlement;
  /** The event's job, settled in the same transaction (deleted, or put back at its next turn). */
  job?: HeldJob;
  resolve(retryIn: number | null): void;
  reject(err: unknown): void;
}

/**
 * Writes the outcomes of deliveries in groups: every outcome that arrives
 * while a write is under way goes into the next one, in one transaction (the
 * attempt rows, the events, the endpoint health, the batch's own jobs). Under
 * load the cost of a transaction is shared by many events; alone, an outcome
 * is written at once.
 * `write` resolves, once committed, with the delay before the event's next
 * attempt, or null when it has none (its job is over).
 */
export class OutcomeWriter {
  private queue: Pending[] = [];
  private running: Promise<void> | null = null;
  private lastGroupAt = 0;

  constructor(
    private readonly ctx: DbAndConfig & HealthContext,
    private readonly metrics?: WebhookMetrics,
  ) {}

  write(settlement: Settlement, job?: HeldJob): Promise<number | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ settlement, job, resolve, reject });
      this.running ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    // Outcomes of the same turn of the event loop join the first write.
    await new Promise((r) => setImmediate(r));
    while (this.queue.length > 0) {
      // Under load (groups back to back), a group gathers for a few ms: fewer, larger transactions.
      const since = Date.now() - this.lastGroupAt;
      if (since < GROUP_WINDOW_MS) await new Promise((r) => setTimeout(r, GROUP_WINDOW_MS - since));
      this.lastGroupAt = Date.now();
      const group = this.queue;
      this.queue = [];
      try {
        const results = await this.ctx.db.kysely.transaction().execute((trx) => this.record(trx, group));
        group.forEach((p, i) => p.resolve(results[i].retryIn));
        this.count(group, results);
      } catch (err) {
        for (const p of group) p.reject(err);
      }
    }
    this.running = null;
  }

  private async record(trx: Transaction<Database>, group: Pending[]): Promise<Moved[]> {
    const attempts = group.flatMap((p) => (p.settlement.kind === 'attempt' ? [p.settlement] : []));
    if (this.ctx.db.engine === 'postgres' && attempts.length > 0) {
      // The endpoints first, in one order, as deleting or disabling a webhook does (then its events): no deadlock with them.
      const accounts = [...new Set(attempts.map((a) => Number(a.event.account_id)))].sort((x, y) => x - y);
      await trx
        .selectFrom('webhooks')
        .select('account_id')
        .where('account_id', 'in', accounts)
        .orderBy('account_id')
        .forUpdate()
        .execute();
    }
    for (let i = 0; i < attempts.length; i += ATTEMPTS_PER_INSERT) {
      await insertAttempts(
        trx,
        ...attempts
          .slice(i, i + ATTEMPTS_PER_INSERT)
          .flatMap(({ event, url, outcome: o, at }) => [
            event.id,
            event.account_id,
            at,
            url,
            o.method,
            o.status,
            o.durationMs,
            o.error?.slice(0, 500) ?? null,
          ]),
      );
    }
    // A success clears the endpoint's failure record; written once per account and group, before any later failure of that account.
    const toClear = new Set<number>();
    const clear = async (accountId: number) => {
      if (toClear.delete(accountId)) await clearEndpointHealth(trx, accountId);
    };
    const results: Moved[] = [];
    const done: HeldJob[] = [];
    for (const p of group) {
      const s = p.settlement;
      let result: Moved = { retryIn: null, moved: false };
      if (s.kind === 'close') {
        await trx
          .updateTable('events')
          .set({ state: s.state, next_attempt_at: null })
          .where('id', '=', s.eventId)
          .where('state', '=', 'pending')
          .execute();
      } else if (s.kind === 'defer') {
        result = { retryIn: s.delayMs, moved: false };
      } else if (s.kind === 'attempt') {
        result = await this.moveEvent(trx, s);
        if (s.outcome.delivered) toClear.add(s.event.account_id);
        else {
          await clear(s.event.account_id);
          await recordEndpointHealth(
            trx,
            this.ctx,
            s.event.account_id,
            { delivered: false, timedOut: s.outcome.error === 'timeout', url: s.url, error: s.outcome.error },
            s.at,
          );
        }
      }
      results.push(result);
      if (!p.job) continue;
      if (result.retryIn === null) done.push(p.job);
      else
        await rescheduleHeldJob(
          trx,
          p.job,
          Date.now() + result.retryIn,
          s.kind === 'defer' ? s.reason : s.kind === 'attempt' ? (s.outcome.error ?? 'not delivered') : '',
        );
    }
    for (const accountId of [...toClear]) await clear(accountId);
    await completeHeldJobs(trx, done);
    return results;
  }

  /** Delivered, failed after the last retry, or pending with its next attempt time; the delay before that attempt, or null. */
  private async moveEvent(trx: Transaction<Database>, s: Extract<Settlement, { kind: 'attempt' }>): Promise<Moved> {
    const { event, outcome: o, at } = s;
    const attempts = event.attempts + 1;
    // A forbidden address (private, local, reserved) will not change by retrying: failed at once.
    const exhausted = !o.delivered && (attempts > MAX_RETRIES || o.forbidden === true);
    const retryIn = o.delivered || exhausted ? null : retryDelayMs(attempts, this.ctx.config.WEBHOOK_RETRY_BASE_MS);
    const result = await moveEventRow(trx, {
      id: event.id,
      attemptsBefore: event.attempts,
      state: o.delivered ? 'delivered' : exhausted ? 'failed' : 'pending',
      attempts,
      deliveredAt: o.delivered ? at : null,
      nextAttemptAt: retryIn === null ? null : at + retryIn,
      lastStatus: o.status,
      lastError: o.error?.slice(0, 500) ?? null,
    });
    // Not moved: cancelled, disabled or redelivered meanwhile; this job's work is over.
    const moved = Number(result.numAffectedRows ?? 0n) === 1;
    return { moved, retryIn: moved ? retryIn : null };
  }

  private count(group: Pending[], results: Moved[]): void {
    const m = this.metrics;
    if (!m) return;
    group.forEach(({ settlement: s }, i) => {
      if (s.kind !== 'attempt') return;
      m.attempts.inc({ result: s.outcome.delivered ? 'delivered' : 'failed' });
      if (!results[i].moved) return;
      if (s.outcome.delivered) {
        m.delivered.inc();
        m.latency.observe((s.at - s.event.created_at) / 1000);
      } else if (results[i].retryIn === null) m.failed.inc();
    });
  }
}
