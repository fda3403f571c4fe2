import type { Executor } from '../../db/engine.js';
import { formatLocal } from '../../lib/time.js';
import type { WithDb } from '../../context.js';
import { campaignMessagePage, campaignPage, findCampaign, type CampaignQuery } from './store.js';

export type { CampaignQuery } from './store.js';

export type CampaignStatus = 'scheduled' | 'sending' | 'finished';

export interface CampaignItem {
  id: number;
  name: string;
  /** YYYY-MM-DD HH:mm:ss, America/Mexico_City. */
  create_date: string;
  /** The channel: sms, rcs, chatapp or voice. */
  type: string;
  status: CampaignStatus;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

/**
 * The account's campaigns, newest first. status: `scheduled` while a message
 * waits for its send date, `sending` while one waits for a carrier, else
 * `finished` (delivery reports may still arrive; /reports/details has them).
 * Used by POST/GET /campaigns and the panel.
 */
export async function listCampaigns(db: Executor, q: CampaignQuery): Promise<CampaignItem[]> {
  const rows = await campaignPage(db, { ...q, limit: Math.min(Math.max(1, q.limit), MAX_LIMIT) });
  return rows.map((r) => ({
    id: Number(r.id),
    name: r.name,
    create_date: formatLocal(Number(r.created_at)),
    type: r.channel,
    status: Number(r.has_scheduled) === 1 ? 'scheduled' : Number(r.has_queued) === 1 ? 'sending' : 'finished',
  }));
}

// Given the context (the panel's pages).

export const recentCampaigns = (ctx: WithDb, q: CampaignQuery) => listCampaigns(ctx.db.kysely, q);

export const campaignOf = (ctx: WithDb, accountId: number, id: number) => findCampaign(ctx.db.kysely, accountId, id);

export const campaignMessages = (ctx: WithDb, accountId: number, id: number, after: number, limit: number) =>
  campaignMessagePage(ctx.db.kysely, accountId, id, after, limit);
