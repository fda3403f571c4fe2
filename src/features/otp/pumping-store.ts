import { sql } from 'kysely';
import type { Executor } from '../../db/engine.js';
import { prepared } from '../../db/prepared.js';

/** The block in force for this prefix and family (its own, or the deployment's), if any: one indexed read. */
const selectBlock = prepared<{ prefix: string; root: number; now: number }, { id: number; until: number }>((db, slot) =>
  db
    .selectFrom('otp_prefix_blocks')
    .select(['id', 'until'])
    .where('prefix', '=', slot('prefix'))
    .where('until', '>', slot('now'))
    .where((eb) => eb.or([eb('root_account_id', 'is', null), eb('root_account_id', '=', slot('root'))]))
    .orderBy('until', 'desc')
    .limit(1),
);

export async function blockInForce(
  db: Executor,
  prefix: string,
  root: number,
  now: number,
): Promise<{ id: number; until: number } | undefined> {
  const row = (await selectBlock(db, { prefix, root, now })).rows[0];
  return row && { id: Number(row.id), until: Number(row.until) };
}

/** One new code, or one verification, in the bucket: one upsert. The family is the account's top-level account. */
const countInBucket = prepared<
  { accountId: number; prefix: string; bucket: number; created: number; verified: number },
  { created: number; verified: number }
>((db, slot) =>
  db
    .insertInto('otp_prefix_counts')
    .values({
      root_account_id: sql<number>`(select coalesce(parent_id, id) from accounts where id = ${slot('accountId')})`,
      prefix: slot('prefix'),
      bucket: slot('bucket'),
      created: slot('created'),
      verified: slot('verified'),
    })
    .onConflict((oc) =>
      oc.columns(['root_account_id', 'prefix', 'bucket']).doUpdateSet({
        created: sql`otp_prefix_counts.created + excluded.created`,
        verified: sql`otp_prefix_counts.verified + excluded.verified`,
      }),
    )
    .returning(['created', 'verified']),
);

export async function countPrefix(
  db: Executor,
  k: { accountId: number; prefix: string; bucket: number },
  what: 'created' | 'verified',
): Promise<{ created: number; verified: number }> {
  const row = (
    await countInBucket(db, { ...k, created: what === 'created' ? 1 : 0, verified: what === 'verified' ? 1 : 0 })
  ).rows[0]!;
  return { created: Number(row.created), verified: Number(row.verified) };
}

/** The window's counts for the family and prefix: the buckets from `fromBucket` on. */
const sumWindow = prepared<
  { root: number; prefix: string; fromBucket: number },
  { created: number | null; verified: number | null }
>((db, slot) =>
  db
    .selectFrom('otp_prefix_counts')
    .select((eb) => [eb.fn.sum<number>('created').as('created'), eb.fn.sum<number>('verified').as('verified')])
    .where('root_account_id', '=', slot('root'))
    .where('prefix', '=', slot('prefix'))
    .where('bucket', '>=', slot('fromBucket')),
);

export async function windowCounts(
  db: Executor,
  root: number,
  prefix: string,
  fromBucket: number,
): Promise<{ created: number; verified: number }> {
  const row = (await sumWindow(db, { root, prefix, fromBucket })).rows[0];
  return { created: Number(row?.created ?? 0), verified: Number(row?.verified ?? 0) };
}

export interface NewBlock {
  root: number | null;
  prefix: string;
  since: number;
  until: number;
  created: number;
  verified: number;
}

export async function insertBlock(db: Executor, b: NewBlock): Promise<number> {
  const row = await db
    .insertInto('otp_prefix_blocks')
    .values({
      root_account_id: b.root,
      prefix: b.prefix,
      since: b.since,
      until: b.until,
      created: b.created,
      verified: b.verified,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** The families with a block of this prefix in force, with their counts. */
export async function familyBlocks(
  db: Executor,
  prefix: string,
  now: number,
): Promise<Array<{ root: number; created: number; verified: number }>> {
  const rows = await db
    .selectFrom('otp_prefix_blocks')
    .select(['root_account_id', 'created', 'verified'])
    .where('prefix', '=', prefix)
    .where('until', '>', now)
    .where('root_account_id', 'is not', null)
    .execute();
  const byFamily = new Map<number, { root: number; created: number; verified: number }>();
  for (const r of rows)
    byFamily.set(Number(r.root_account_id), {
      root: Number(r.root_account_id),
      created: Number(r.created),
      verified: Number(r.verified),
    });
  return [...byFamily.values()];
}

export interface BlockRow {
  id: number;
  root_account_id: number | null;
  email: string | null;
  prefix: string;
  since: number;
  until: number;
  created: number;
  verified: number;
}

/** The blocks in force, newest first, with the family's email. */
export async function blocksInForce(db: Executor, now: number): Promise<BlockRow[]> {
  const rows = await db
    .selectFrom('otp_prefix_blocks')
    .leftJoin('accounts', 'accounts.id', 'otp_prefix_blocks.root_account_id')
    .select([
      'otp_prefix_blocks.id',
      'otp_prefix_blocks.root_account_id',
      'accounts.email',
      'otp_prefix_blocks.prefix',
      'otp_prefix_blocks.since',
      'otp_prefix_blocks.until',
      'otp_prefix_blocks.created',
      'otp_prefix_blocks.verified',
    ])
    .where('otp_prefix_blocks.until', '>', now)
    .orderBy('otp_prefix_blocks.id', 'desc')
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    root_account_id: r.root_account_id === null ? null : Number(r.root_account_id),
    email: r.email ?? null,
    prefix: r.prefix,
    since: Number(r.since),
    until: Number(r.until),
    created: Number(r.created),
    verified: Number(r.verified),
  }));
}

/**
 * Ends a block in force at once; false when there is none with this id. A family's counts of the prefix start again
 * from nothing, or the next code would block it again at once.
 */
export async function endBlock(db: Executor, id: number, now: number): Promise<boolean> {
  const ended = await db
    .updateTable('otp_prefix_blocks')
    .set({ until: now })
    .where('id', '=', id)
    .where('until', '>', now)
    .returning(['root_account_id', 'prefix'])
    .executeTakeFirst();
  if (!ended) return false;
  if (ended.root_account_id !== null)
    await db
      .deleteFrom('otp_prefix_counts')
      .where('root_account_id', '=', Number(ended.root_account_id))
      .where('prefix', '=', ended.prefix)
      .execute();
  return true;
}

/** Counts past any window, and blocks ended before `before`, are of no further use. */
export async function prunePumping(db: Executor, beforeBucket: number, before: number): Promise<number> {
  const counts = await db.deleteFrom('otp_prefix_counts').where('bucket', '<', beforeBucket).executeTakeFirst();
  const blocks = await db.deleteFrom('otp_prefix_blocks').where('until', '<', before).executeTakeFirst();
  return Number(counts.numDeletedRows ?? 0) + Number(blocks.numDeletedRows ?? 0);
}
