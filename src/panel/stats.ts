import type { WithDb } from '../context.js';
import { dailyStatusCounts, messageTotals } from './stats-store.js';
export { groupOf, STATUS_GROUPS, type StatusGroup } from './status-groups.js';
export type { DailyStatus, Totals } from './stats-store.js';

/** Messages of the account per local day of the last `count` days and per status group. */
export const dailyStatusOf = (ctx: WithDb, accountId: number, count = 30) =>
  dailyStatusCounts(ctx.db.kysely, accountId, count);

/** Messages today and this month, and the month's delivery rate. */
export const totalsOf = (ctx: WithDb, accountId: number) => messageTotals(ctx.db.kysely, accountId);
