import { marginReport, MarginError, type MarginBy } from '../../../features/reports/margins.js';
import { formatLocalDate, parseLocal } from '../../../lib/time.js';
import { refuse, type View } from '../../view.js';

export const BY: MarginBy[] = ['account', 'carrier', 'prefix', 'day'];

export interface Filters {
  by: MarginBy;
  from: string;
  to: string;
}

/** The form's filters: a grouping, and a period of Mexico City days (default: this month so far). */
export function filtersOf(query: Record<string, string | undefined>): Filters {
  const today = formatLocalDate(Date.now());
  const from = (query.from || `${today.slice(0, 8)}01`).trim();
  const to = (query.to || today).trim();
  const isDate = (d: string) => /^\d{4}-\d{2}-\d{2}$/.test(d) && parseLocal(d) !== null;
  if (!isDate(from) || !isDate(to)) throw refuse(400, 'date_invalid');
  return { by: BY.find((b) => b === query.by) ?? 'account', from, to };
}

/** `reports margins` for the filters; a period the service refuses (reversed, over a year) is the person's to fix. */
export async function report(v: View, f: Filters, by: MarginBy = f.by) {
  try {
    return await marginReport(v.ctx, { from: f.from, to: f.to, by });
  } catch (err) {
    if (err instanceof MarginError) throw refuse(400, 'period_invalid');
    throw err;
  }
}
