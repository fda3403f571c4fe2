import { sql } from 'kysely';
import type { Executor } from './engine.js';
import type { RateRevisionsTable } from './schema.js';

type ListName = RateRevisionsTable['name'];

/** Marks the list changed, in the transaction of the change: every process reloads it within its poll interval. */
export async function bumpRevision(db: Executor, name: ListName): Promise<void> {
  await db
    .updateTable('rate_revisions')
    .set({ revision: sql`revision + 1` })
    .where('name', '=', name)
    .execute();
}

async function readRevision(db: Executor, name: ListName): Promise<number> {
  const row = await db.selectFrom('rate_revisions').select('revision').where('name', '=', name).executeTakeFirst();
  return Number(row?.revision ?? 0);
}

/**
 * A list this process keeps in memory (prices, carrier costs). At most once
 * per `pollMs` it reads the list's revision, and reloads the list only when
 * the revision moved: a change made by any process (the CLI) applies here
 * within `pollMs`, and 10,000 rows are not read again while nothing changes.
 */
export class RevisionedCache<T> {
  private value: T | null = null;
  private revision = -1;
  private checkedAt = 0;
  private checking: Promise<T> | null = null;

  constructor(
    private readonly name: ListName,
    private readonly pollMs: number,
    private readonly load: (db: Executor) => Promise<T>,
  ) {}

  /** The list, read through `db` (a caller's transaction on SQLite's single connection) when due. */
  current(db: Executor): Promise<T> {
    const now = Date.now();
    if (this.value !== null && now - this.checkedAt < this.pollMs) return Promise.resolve(this.value);
    // One check at a time: concurrent sends after a change wait for one reload, and an older load never overwrites a newer one.
    return (this.checking ??= this.check(db, now).finally(() => (this.checking = null)));
  }

  private async check(db: Executor, now: number): Promise<T> {
    // The revision first: a change between the two reads is then loaded again at the next check, never missed.
    const revision = await readRevision(db, this.name);
    if (this.value === null || revision !== this.revision) {
      this.value = await this.load(db);
      this.revision = revision;
    }
    this.checkedAt = now;
    return this.value;
  }
}
