import { shownEmail } from '../../accounts/subaccount-email.js';
import type { BaseContext } from '../../context.js';
import { formatCents } from '../../lib/money.js';
import { formatLocalDate, parseLocal } from '../../lib/time.js';
import { retentionCoversFrom } from '../../messaging/retention.js';
import { sumMargins, type MarginQuery, type MarginSums } from './margins-store.js';

export type MarginBy = 'account' | 'carrier' | 'prefix' | 'day';

/** Revenue is in 1e-8 of the currency (credit units × ten-thousandths per credit), cost in 1e-4. */
const REVENUE_SCALE = 100_000_000n;
const COST_TO_REVENUE = 10_000n;

/** The longest period one report covers, in days. */
export const MAX_DAYS = 366;

export interface MarginRequest {
  /** YYYY-MM-DD, Mexico City, both included. */
  from: string;
  to: string;
  /** The account (and its sub-accounts); undefined: every account. */
  accountIds?: number[];
  by: MarginBy;
}

export class MarginError extends Error {}

function nextDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/** The years a report may name: before 1970 nothing was sent, and the day after 9998-12-31 still has four digits. */
const FIRST_YEAR = 1970;
const LAST_YEAR = 9998;

function dayStart(date: string, option: string): number {
  const year = Number(date.slice(0, 4));
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(date) && year >= FIRST_YEAR && year <= LAST_YEAR ? parseLocal(date) : null;
  if (ms === null)
    throw new MarginError(`${option} is a date, YYYY-MM-DD, from ${FIRST_YEAR}-01-01 to ${LAST_YEAR}-12-31`);
  return ms;
}

/** The days from `from` to `to`, both included (YYYY-MM-DD). */
export function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day <= to; day = nextDay(day)) days.push(day);
  return days;
}

function shown(key: Record<string, string>, s: MarginSums) {
  const revenue = s.revenue;
  const cost = s.cost * COST_TO_REVENUE;
  return {
    ...key,
    parts: s.parts,
    delivered: s.delivered,
    failed: s.failed,
    revenue: formatCents(revenue, REVENUE_SCALE),
    cost: formatCents(cost, REVENUE_SCALE),
    cost_unknown: s.costUnknown,
    margin: formatCents(revenue - cost, REVENUE_SCALE),
  };
}

export type MarginRow = ReturnType<typeof shown>;

/**
 * Sums by hour folded into Mexico City days, in day order: one scan of the
 * period whatever its length (the zone's offsets are whole hours, so an hour
 * never straddles two days).
 */
function byLocalDay(hours: MarginSums[]): MarginSums[] {
  const days = new Map<string, MarginSums[]>();
  for (const h of hours) {
    const day = formatLocalDate(Number(h.key) * 3_600_000);
    const group = days.get(day);
    if (group) group.push(h);
    else days.set(day, [h]);
  }
  return [...days.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, sums]) => ({ ...total(sums), key: day }));
}

function total(rows: MarginSums[]): MarginSums {
  return rows.reduce(
    (t, r) => ({
      key: '',
      parts: t.parts + r.parts,
      delivered: t.delivered + r.delivered,
      failed: t.failed + r.failed,
      revenue: t.revenue + r.revenue,
      cost: t.cost + r.cost,
      costUnknown: t.costUnknown + r.costUnknown,
    }),
    { key: '', parts: 0, delivered: 0, failed: 0, revenue: 0n, cost: 0n, costUnknown: 0 },
  );
}

/**
 * The margins of the messages accepted in a period, by account, carrier,
 * price prefix or Mexico City day, with the totals of the period: each row
 * rounds its own exact sums to cents, and the totals are the exact sums of
 * every row rounded once (so they match the ledger to the cent).
 */
export async function marginReport(ctx: BaseContext, req: MarginRequest) {
  const start = dayStart(req.from, '--from');
  const last = dayStart(req.to, '--to');
  if (req.to < req.from) throw new MarginError('--to is before --from');
  // Measured before the days are counted one by one: a span of centuries is refused at once.
  if (last - start > (MAX_DAYS + 1) * 86_400_000 || daysOf(req.from, req.to).length > MAX_DAYS)
    throw new MarginError(`a report covers at most ${MAX_DAYS} days`);
  const query: MarginQuery = {
    from: start,
    to: parseLocal(nextDay(req.to))!,
    accountIds: req.accountIds,
    defaultCreditValue: ctx.config.CREDIT_VALUE,
  };
  const sums =
    req.by === 'day'
      ? byLocalDay(await sumMargins(ctx.db.kysely, query, 'hour'))
      : await sumMargins(ctx.db.kysely, query, req.by);
  const names =
    req.by === 'account'
      ? await emailsOf(
          ctx,
          sums.map((s) => Number(s.key)),
        )
      : null;
  const rows = sums.map((s) => shown({ [req.by]: names ? (names.get(Number(s.key)) ?? s.key) : s.key }, s));
  // Only when retention prunes old messages: the first day still held in full (an older day may miss pruned messages).
  const covers = retentionCoversFrom(ctx.config, Date.now());
  return {
    currency: ctx.config.COST_CURRENCY,
    ...(covers === null ? {} : { covers_from: covers }),
    rows,
    totals: shown({}, total(sums)),
  };
}

async function emailsOf(ctx: BaseContext, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await ctx.db.kysely.selectFrom('accounts').select(['id', 'email']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [Number(r.id), shownEmail(r.email)]));
}

/** A report row's fields in order (the CSV's header row). */
export const marginFields = (by: MarginBy) =>
  [by, 'parts', 'delivered', 'failed', 'revenue', 'cost', 'cost_unknown', 'margin'] as const;

/** A text cell a spreadsheet would run as a formula gets a leading apostrophe; one with a separator is quoted. */
function textCell(value: string): string {
  const safe = /^\s*[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",;\t\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The report's rows as CSV: a header row naming the JSON row fields in order, then one line per row. */
export function marginCsv(by: MarginBy, rows: MarginRow[]): string {
  const fields = marginFields(by);
  const lines = rows.map((r) =>
    fields
      .map((f) =>
        f === by ? textCell(String((r as Record<string, unknown>)[f])) : String((r as Record<string, unknown>)[f]),
      )
      .join(','),
  );
  return [fields.join(','), ...lines].join('\n');
}
