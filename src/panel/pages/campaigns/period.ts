import { localDay } from '../../../features/reports/service.js';
import { refuse, type View } from '../../view.js';

/** A period's export covers at most a year: beyond it, export several. */
const MAX_PERIOD_DAYS = 366;

/** The period of the list and the export: YYYY-MM-DD days in Mexico City, both included. */
export function period(v: View, required: boolean): { from: number | null; to: number | null } {
  const from = v.query.from ? localDay(v.query.from) : null;
  const to = v.query.to ? localDay(v.query.to) : null;
  if ((v.query.from && !from) || (v.query.to && !to) || (required && (!from || !to))) throw refuse(400, 'date_invalid');
  if (from && to && (to.end <= from.start || to.end - from.start > MAX_PERIOD_DAYS * 86_400_000))
    throw refuse(400, 'period_invalid');
  return { from: from?.start ?? null, to: to?.end ?? null };
}
