import { sql } from 'kysely';
import type { Executor } from '../../db/engine.js';

export interface CampaignQuery {
  accountId: number;
  /** 1: only sandbox campaigns; 0: only real ones. */
  sandbox: 0 | 1;
  /** Epoch ms, inclusive; null: no lower bound. */
  from: number | null;
  /** Epoch ms, exclusive; null: no upper bound. */
  to: number | null;
  limit: number;
}

/**
 * The account's campaigns newest first (the (account_id, created_at) index),
 * with two flags from their messages: one still scheduled, one not yet
 * handed to a carrier (stage 0). Codes sent by /v2/otp are campaigns too,
 * one per code; they are left out (see docs/api/campaigns.md).
 */
export function campaignPage(db: Executor, q: CampaignQuery) {
  return db
    .selectFrom('campaigns as c')
    .select([
      'c.id',
      'c.name',
      'c.channel',
      'c.created_at',
      sql<number>`case when exists (select 1 from messages m where m.campaign_id = c.id and m.status = 'scheduled') then 1 else 0 end`.as(
        'has_scheduled',
      ),
      sql<number>`case when exists (select 1 from messages m where m.campaign_id = c.id and m.stage = 0) then 1 else 0 end`.as(
        'has_queued',
      ),
    ])
    .where('c.account_id', '=', q.accountId)
    .where('c.sandbox', '=', q.sandbox)
    .where('c.source', '!=', 'otp')
    .$if(q.from !== null, (qb) => qb.where('c.created_at', '>=', q.from!))
    .$if(q.to !== null, (qb) => qb.where('c.created_at', '<', q.to!))
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id', 'desc')
    .limit(q.limit)
    .execute();
}

/** One of the account's campaigns (another account's is as absent as one that does not exist). */
export function findCampaign(db: Executor, accountId: number, id: number) {
  return db
    .selectFrom('campaigns')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** A page of a campaign's messages in id order, after the id `after`. */
export function campaignMessagePage(db: Executor, accountId: number, id: number, after: number, limit: number) {
  return db
    .selectFrom('messages')
    .select(['id', 'number', 'status', 'dlr_code', 'sent_at', 'created_at'])
    .where('campaign_id', '=', id)
    .where('account_id', '=', accountId)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}
