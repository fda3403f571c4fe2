import { AsyncResource } from 'node:async_hooks';
import { CompiledQuery, type Transaction } from 'kysely';
import type { Db } from '../db/engine.js';
import type { Database } from '../db/schema.js';

type Work<T> = (trx: Transaction<Database>) => Promise<T>;

interface Pending {
  work: Work<unknown>;
  /** Orders the requests of a batch (the account id), so that processes lock account rows in one order. */
  order: number;
  /** Bounds the size of a batch (recipients). */
  weight: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Merge<I, T> = (trx: Transaction<Database>, items: I[]) => Promise<T[]>;

interface Merging {
  items: Array<{
    item: unknown;
    weight: number;
    resolve(value: unknown): void;
    reject(error: unknown): void;
    bind(fn: () => Promise<unknown>): Promise<unknown>;
  }>;
  merge: Merge<unknown, unknown>;
  order: number;
  weight: number;
}

/** Requests per shared transaction at most, and their recipients at most. */
const MAX_REQUESTS = 200;
const MAX_WEIGHT = 2_000;

const SAVEPOINT = CompiledQuery.raw('savepoint grouped');
const RELEASE = CompiledQuery.raw('release savepoint grouped');
const ROLLBACK_TO = CompiledQuery.raw('rollback to savepoint grouped');

/**
 * Group commit: concurrent requests share one transaction instead of paying
 * a BEGIN/COMMIT (and, on PostgreSQL, a WAL flush) each. A request that
 * throws (insufficient credits, a constraint) is rolled back alone: the batch
 * first runs without savepoints and, if one of its requests throws, runs
 * again from nothing with each request in its own savepoint (so does every
 * batch after it until one has no failure). A request's work may therefore
 * run more than once before its commit: it must only write through `trx`.
 * Every request is answered only after the shared COMMIT, so nothing is
 * reported accepted before it is durable.
 * While a batch commits, the next requests queue and form the next batch;
 * a lone request waits one turn of the event loop at most. One per database
 * per process: src/app/boot.ts builds it with the database (ctx.groupCommit).
 */
export class GroupCommit {
  private queue: Pending[] = [];
  /** Items of mergeable works, by key, waiting for the end of this turn of the event loop (runMerged). */
  private merging = new Map<string, Merging>();
  private running = false;
  /** Whether the last batch of several requests had no request that threw. */
  private lastBatchClean = true;

  constructor(private readonly db: Db) {}

  run<T>(work: Work<T>, order: number, weight = 1): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // The work runs in its caller's async context, whichever request's turn drains the queue (accepted-by.ts).
      this.queue.push({
        work: AsyncResource.bind(work),
        order,
        weight,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      if (!this.running) void this.drain();
    });
  }

  /**
   * Works of one `key` queued before the group commit takes its next batch run as one work in it: `merge` writes their items together
   * (one statement for what they share) and answers each in order. If that one work throws, each item runs again
   * alone, so only an item that fails by itself is refused. The key says which items may be merged.
   */
  runMerged<I, T>(key: string, item: I, merge: Merge<I, T>, order: number, weight = 1): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let group = this.merging.get(key);
      if (!group) {
        group = { items: [], merge: merge as Merge<unknown, unknown>, order, weight: 0 };
        this.merging.set(key, group);
      }
      group.items.push({
        item,
        weight,
        resolve: resolve as (v: unknown) => void,
        reject,
        // Each item's writes run in its caller's async context (accepted-by.ts), as run() does for a work.
        bind: AsyncResource.bind((fn: () => Promise<unknown>) => fn()),
      });
      group.weight += weight;
      if (group.items.length >= MAX_REQUESTS || group.weight >= MAX_WEIGHT) this.flushMerged(key, group);
      if (!this.running) void this.drain();
    });
  }

  private flushMerged(key: string, group: Merging): void {
    if (this.merging.get(key) !== group) return;
    this.merging.delete(key);
    const { items, merge, order, weight } = group;
    if (items.length === 1) {
      const [one] = items;
      this.run((trx) => one.bind(() => merge(trx, [one.item])) as Promise<unknown[]>, order, weight).then(
        ([value]) => one.resolve(value),
        one.reject,
      );
      return;
    }
    this.run(
      (trx) =>
        items[0].bind(() =>
          merge(
            trx,
            items.map((i) => i.item),
          ),
        ) as Promise<unknown[]>,
      order,
      weight,
    ).then(
      (values) => items.forEach((i, k) => i.resolve(values[k])),
      // One of them could not be written with the others: each alone, so only its own failure refuses it.
      () => {
        for (const i of items)
          this.run((trx) => i.bind(() => merge(trx, [i.item])) as Promise<unknown[]>, order, i.weight).then(
            ([value]) => i.resolve(value),
            i.reject,
          );
      },
    );
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      // One turn of the event loop lets the requests already read from their sockets join the batch; the merged
      // works they formed meanwhile join it then.
      while (this.queue.length > 0 || this.merging.size > 0)
        await nextTurn().then(() => {
          for (const [key, group] of this.merging) this.flushMerged(key, group);
          return this.commit(this.takeBatch());
        });
    } finally {
      this.running = false;
    }
  }

  private takeBatch(): Pending[] {
    let weight = 0;
    let n = 0;
    while (n < this.queue.length && n < MAX_REQUESTS && (n === 0 || weight + this.queue[n].weight <= MAX_WEIGHT))
      weight += this.queue[n++].weight;
    return this.queue.splice(0, n).sort((a, b) => a.order - b.order);
  }

  private async commit(batch: Pending[]): Promise<void> {
    if (batch.length === 1) return settle(batch[0], () => this.db.kysely.transaction().execute(batch[0].work));
    if (this.lastBatchClean && (await this.commitWhole(batch))) return;
    await this.commitIsolated(batch);
  }

  /**
   * The batch in one transaction without savepoints (they cost a third of a
   * SQLite send's statements, a round trip each on PostgreSQL). Returns false,
   * having written nothing, when a request threw: the caller runs the batch
   * again with savepoints, and so does every batch until one has no failure.
   */
  private async commitWhole(batch: Pending[]): Promise<boolean> {
    const values: unknown[] = [];
    try {
      await this.db.kysely.transaction().execute(async (trx) => {
        for (const p of batch) values.push(await p.work(trx));
      });
    } catch (error) {
      if (values.length < batch.length) {
        this.lastBatchClean = false;
        return false;
      }
      for (const p of batch) p.reject(error);
      return true;
    }
    batch.forEach((p, i) => p.resolve(values[i]));
    return true;
  }

  private async commitIsolated(batch: Pending[]): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    let bodyDone = false;
    try {
      await this.db.kysely.transaction().execute(async (trx) => {
        for (const p of batch) {
          await trx.executeQuery(SAVEPOINT);
          try {
            outcomes.push({ ok: true, value: await p.work(trx) });
            await trx.executeQuery(RELEASE);
          } catch (error) {
            await trx.executeQuery(ROLLBACK_TO);
            await trx.executeQuery(RELEASE);
            outcomes.push({ ok: false, error });
          }
        }
        bodyDone = true;
      });
    } catch (error) {
      // Failed before COMMIT (a savepoint statement, a lost connection):
      // nothing was written, each request runs again alone. A failed COMMIT
      // itself is answered as such, as a lone transaction's would be.
      if (!bodyDone) {
        for (const p of batch) await settle(p, () => this.db.kysely.transaction().execute(p.work));
      } else for (const p of batch) p.reject(error);
      return;
    }
    this.lastBatchClean = outcomes.every((o) => o.ok);
    for (let i = 0; i < batch.length; i++) {
      const o = outcomes[i];
      if (o.ok) batch[i].resolve(o.value);
      else if (isLockConflict(o.error))
        await settle(batch[i], () => this.db.kysely.transaction().execute(batch[i].work));
      else batch[i].reject(o.error);
    }
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function settle(p: Pending, run: () => Promise<unknown>): Promise<void> {
  try {
    p.resolve(await run());
  } catch (error) {
    p.reject(error);
  }
}

/** PostgreSQL deadlock or serialization failure: the request did nothing wrong and runs again alone. */
function isLockConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}
