import { sql } from 'kysely';
import type { Executor } from '../../db/engine.js';
import type { MessageStatus } from '../../messaging/tables.js';

export interface ReportQuery {
  accountId: number;
  sandbox: 0 | 1;
  /** Epoch ms, inclusive. */
  from: number;
  /** Epoch ms, exclusive. */
  to: number;
}

/** Where the previous page stopped: rows come in (created_at, id) order. */
export interface ReportCursor {
  createdAt: number;
  id: number;
}

export type ReportSourceRow = Awaited<ReturnType<typeof reportPage>>[number];

/**
 * One page of the account's messages in the period, after `cursor`, in the
 * order of the (account_id, created_at, id) index: the database reads the page
 * along the index and stops at the limit, so each page costs the same however
 * deep into the period it is. The cursor is a row comparison, which both
 * engines turn into the start of the index range (an OR of two columns is only
 * a filter). This holds without statistics too (PostgreSQL right after a bulk
 * load): no plan that sorts is cheaper than one that needs no sort.
 */
export function reportPageQuery(db: Executor, q: ReportQuery, cursor: ReportCursor | null, limit: number) {
  return (
    db
      .selectFrom('messages as m')
      .innerJoin('campaigns as c', 'c.id', 'm.campaign_id')
      .select([
        'm.id',
        'm.created_at',
        'c.name',
        'c.source',
        'm.reference',
        'm.number',
        'm.text',
        'm.sent_at',
        'm.status',
        'm.dlr_code',
        'm.carrier',
        'm.channel',
      ])
      .where('m.account_id', '=', q.accountId)
      .where('m.sandbox', '=', q.sandbox)
      // The cursor's time as a plain bound too: SQLite starts its index range there, not at the row comparison.
      .where('m.created_at', '>=', cursor ? cursor.createdAt : q.from)
      .where('m.created_at', '<', q.to)
      .$if(cursor !== null, (qb) =>
        qb.where((eb) => eb(eb.refTuple('m.created_at', 'm.id'), '>', eb.tuple(cursor!.createdAt, cursor!.id))),
      )
      .orderBy('m.created_at')
      .orderBy('m.id')
      .limit(limit)
  );
}

export const reportPage = (db: Executor, q: ReportQuery, cursor: ReportCursor | null, limit: number) =>
  reportPageQuery(db, q, cursor, limit).execute();

/** The account's campaign with that id and sandbox flag, or undefined (another account's behaves as absent). */
export function findCampaign(db: Executor, accountId: number, campaignId: number, sandbox: 0 | 1) {
  return db
    .selectFrom('campaigns')
    .select(['id'])
    .where('id', '=', campaignId)
    .where('account_id', '=', accountId)
    .where('sandbox', '=', sandbox)
    .executeTakeFirst();
}

/** Message counts of a campaign per status, plus how many were not charged. */
export async function campaignStatusCounts(db: Executor, accountId: number, campaignId: number) {
  const rows = await db
    .selectFrom('messages')
    .select([
      'status',
      (eb) => eb.fn.countAll<number>().as('n'),
      sql<number>`sum(case when price_units = 0 then 1 else 0 end)`.as('free'),
    ])
    .where('campaign_id', '=', campaignId)
    .where('account_id', '=', accountId)
    .groupBy('status')
    .execute();
  return rows.map((r) => ({ status: r.status as MessageStatus, count: Number(r.n), free: Number(r.free ?? 0) }));
}
