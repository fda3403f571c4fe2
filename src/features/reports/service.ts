import type { WithDb } from '../../context.js';
import type { Executor } from '../../db/engine.js';
import { parseLocal } from '../../lib/time.js';
import type { MessageStatus } from '../../messaging/tables.js';
import { LocalTimeFormatter } from './local-time.js';
import {
  campaignStatusCounts,
  reportPage,
  type ReportCursor,
  type ReportQuery,
  type ReportSourceRow,
} from './store.js';
export { findCampaign } from './store.js';

/** Message counts of a campaign per status (the panel charts them). */
export { campaignStatusCounts };

/** The spec's delivery status codes (Events), as the report's status word. */
export const DELIVERY_STATUS_WORDS = [
  'delivered',
  'not delivered',
  'temporary disconnection',
  'expired',
  'rejected',
  'unknown',
  'unknown number',
  'incorrect format',
  'error',
  'phishing',
  'blacklist',
  'landline number',
  'country not contracted',
] as const;

/** The word for a message that has no delivery code yet (or never will: sandbox). */
const STAGE_WORDS: Record<MessageStatus, string> = {
  scheduled: 'scheduled',
  queued: 'queued',
  sent: 'sent',
  delivered: 'delivered',
  undelivered: 'not delivered',
  refused: 'rejected',
  sandbox: 'sandbox',
};

/** The readable status of a report row: the delivery code's meaning once there is one, else the message's stage. */
export function statusWord(status: MessageStatus, dlrCode: number | null): string {
  if (status !== 'sandbox' && dlrCode !== null && DELIVERY_STATUS_WORDS[dlrCode]) return DELIVERY_STATUS_WORDS[dlrCode];
  return STAGE_WORDS[status] ?? status;
}

/** The report's `type`: what produced the message; for SMS, its channel (sms or rcs). */
export const messageType = (source: string, channel: string) => (source === 'sms' ? channel : source);

/**
 * A YYYY-MM-DD day in Mexico City as [start of the day, start of the next day)
 * in epoch ms, or null when it is not a real calendar date.
 */
export function localDay(text: string): { start: number; end: number } | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const start = parseLocal(text);
  const last = parseLocal(`${text} 23:59:59`);
  // The next midnight from the day's last second, not start + 24 h: days are 23 or 25 hours long at DST changes.
  return start === null || last === null ? null : { start, end: last + 1000 };
}

export interface ReportRow {
  name: string;
  created_date: string;
  reference: string;
  number: string;
  message: string;
  sent_date: string;
  status: string;
  status_code: string;
  operator: string;
  type: string;
}

export function toReportRow(r: ReportSourceRow, time: LocalTimeFormatter): ReportRow {
  return {
    name: r.name,
    created_date: time.format(r.created_at),
    reference: r.reference,
    number: r.number,
    message: r.text,
    sent_date: r.sent_at === null ? '' : time.format(r.sent_at),
    status: statusWord(r.status, r.dlr_code),
    status_code: r.dlr_code === null ? '' : String(r.dlr_code),
    operator: r.carrier ?? '',
    type: messageType(r.source, r.channel),
  };
}

/**
 * The success envelope of /reports/generate as JSON text chunks: the head,
 * then one chunk per page of rows read by keyset pagination, then the tail.
 * Only one page is in memory at a time, and only when the reader asks for
 * more (the HTTP response pulls it), so a slow client holds back the queries.
 */
/** Chunks stay small enough to be young-generation strings that V8 frees at once, not large objects left for a major GC. */
const CHUNK_CHARS = 32_768;

/** The period's rows page by page (keyset pagination, one page in memory): the JSON report and the panel's CSV export. */
export async function* reportPages(db: Executor, q: ReportQuery, pageRows: number): AsyncGenerator<ReportSourceRow[]> {
  let cursor: ReportCursor | null = null;
  for (;;) {
    const page = await reportPage(db, q, cursor, pageRows);
    if (page.length === 0) return;
    yield page;
    if (page.length < pageRows) return;
    const last = page[page.length - 1];
    cursor = { createdAt: last.created_at, id: last.id };
  }
}

export async function* reportJson(
  db: Executor,
  q: ReportQuery,
  pageRows: number,
  coversFrom: string | null = null,
): AsyncGenerator<string> {
  const covers = coversFrom === null ? '' : `"covers_from":${JSON.stringify(coversFrom)},`;
  yield `{"success":true,"message":"report_generated","status":200,"code":"report_04",${covers}"report":[`;
  const time = new LocalTimeFormatter();
  let first = true;
  for await (const page of reportPages(db, q, pageRows)) {
    let chunk = '';
    for (let i = 0; i < page.length; i++) {
      chunk += (first ? '' : ',') + JSON.stringify(toReportRow(page[i], time));
      first = false;
      if (chunk.length >= CHUNK_CHARS || i === page.length - 1) {
        yield chunk;
        chunk = '';
      }
    }
  }
  yield ']}';
}

export interface CampaignDetails {
  effectiveness: number;
  totals: number;
  delivered: number;
  failed: number;
  pending: number;
  not_charged: number;
}

/** Which count of the details a message in each status adds to (sandbox messages only count as not charged). */
export const DETAIL_GROUP: Record<MessageStatus, 'delivered' | 'failed' | 'pending' | null> = {
  scheduled: 'pending',
  queued: 'pending',
  sent: 'pending',
  delivered: 'delivered',
  undelivered: 'failed',
  refused: 'failed',
  sandbox: null,
};

/** Statuses whose messages were never charged or were refunded. */
const NOT_CHARGED: ReadonlySet<MessageStatus> = new Set(['sandbox', 'refused']);

export async function campaignDetails(db: Executor, accountId: number, campaignId: number): Promise<CampaignDetails> {
  const d: CampaignDetails = { effectiveness: 0, totals: 0, delivered: 0, failed: 0, pending: 0, not_charged: 0 };
  for (const { status, count, free } of await campaignStatusCounts(db, accountId, campaignId)) {
    d.totals += count;
    const group = DETAIL_GROUP[status];
    if (group) d[group] += count;
    d.not_charged += NOT_CHARGED.has(status) ? count : free;
  }
  d.effectiveness = d.totals === 0 ? 0 : Math.round((d.delivered / d.totals) * 10_000) / 100;
  return d;
}

// Given the context (the panel's Campaigns page).

export const campaignStatusCountsOf = (ctx: WithDb, accountId: number, campaignId: number) =>
  campaignStatusCounts(ctx.db.kysely, accountId, campaignId);

export const campaignDetailsOf = (ctx: WithDb, accountId: number, campaignId: number) =>
  campaignDetails(ctx.db.kysely, accountId, campaignId);

export const reportPagesOf = (ctx: WithDb, q: ReportQuery, pageRows: number) => reportPages(ctx.db.kysely, q, pageRows);
