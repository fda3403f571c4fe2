import { formatLocalDate, parseLocal } from '../lib/time.js';
import { DETAIL_GROUP } from '../features/reports/service.js';
import type { MessageStatus } from '../messaging/tables.js';

/** The chart's groups: the campaign details' groups (reports), plus sandbox messages. */
export const STATUS_GROUPS = ['delivered', 'failed', 'pending', 'sandbox'] as const;
export type StatusGroup = (typeof STATUS_GROUPS)[number];
export const groupOf = (status: MessageStatus): StatusGroup => DETAIL_GROUP[status] ?? 'sandbox';

/** The last `count` Mexico City days, oldest first, as YYYY-MM-DD with their start instants (and the end of the last). */
export function lastLocalDays(count: number, now = Date.now()): { days: string[]; bounds: number[] } {
  const [y, m, d] = formatLocalDate(now).split('-').map(Number);
  const days: string[] = [];
  // Calendar arithmetic on the date, then each midnight through the time zone: days are 23 or 25 hours at DST changes.
  for (let i = count - 1; i >= -1; i--) days.push(new Date(Date.UTC(y, m - 1, d - i)).toISOString().slice(0, 10));
  const bounds = days.map((day) => parseLocal(day)!);
  return { days: days.slice(0, count), bounds };
}
