import { sql, type Transaction } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import type { Executor } from '../db/engine.js';
import { prepared } from '../db/prepared.js';
import { toCredits, toUnits } from '../accounts/credits.js';
import { closeEpisode, isoTime, openEpisode } from '../alerts/episodes.js';
import { formatCompact, formatLocalDate, parseLocal } from '../lib/time.js';
import { recordEvents } from '../webhooks/index.js';
import { Refusal } from './refusal.js';
import './spend-tables.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The spike check's baseline: the 7 Mexico City days before today, spread over their hours. */
const USUAL_DAYS = 7;

type SpendRow = {
  root_account_id: number;
  units: number;
  limit_units: number | null;
  hour_units: number;
  usual_hour_units: number;
  limit_alerted: number;
  spike_hour: number | null;
};

const familyOf = (accountId: unknown) =>
  sql<number>`(select coalesce(parent_id, id) from accounts where id = ${accountId})`;

/**
 * One upsert per debit: the family's spend today grows by the debit only if it stays within the family's limit (read
 * by the same statement), so parallel sends cannot pass it; no row: refused. The limit is re-read by every debit, so a
 * change applies at once. A first debit of the day beyond the limit inserts its row, found by the caller.
 */
const addSpend = prepared<{ accountId: number; day: string; units: number; hour: number }, SpendRow>((db, slot) =>
  db
    .insertInto('spend_days')
    .values({
      root_account_id: familyOf(slot('accountId')),
      day: slot('day'),
      units: slot('units'),
      limit_units: sql<
        number | null
      >`(select daily_units from spend_limits where root_account_id = ${familyOf(slot('accountId'))})`,
      hour: slot('hour'),
      hour_units: slot('units'),
    })
    .onConflict((oc) =>
      oc
        .columns(['root_account_id', 'day'])
        .doUpdateSet({
          units: sql`spend_days.units + excluded.units`,
          limit_units: sql`excluded.limit_units`,
          hour_units: sql`case when spend_days.hour = excluded.hour then spend_days.hour_units + excluded.hour_units else excluded.hour_units end`,
          hour: sql`excluded.hour`,
        })
        .where(sql<boolean>`excluded.limit_units is null or spend_days.units + excluded.units <= excluded.limit_units`),
    )
    .returning([
      'root_account_id',
      'units',
      'limit_units',
      'hour_units',
      'usual_hour_units',
      'limit_alerted',
      'spike_hour',
    ]),
);

/**
 * Counts a debit (the sum of `charges`, one per request it pays for) against the family's spend of the Mexico City
 * day, inside the debit's transaction: throws Refusal daily_spend_limit when it would pass the family's daily limit
 * (the transaction then writes nothing). When it leaves less of the limit than the cheapest of its requests cost (the
 * next such send is refused), the top-level account gets
 * its `spend_limit` event and the operator the `spend_limit` alert, once a day; when the hour's spend passes
 * SPEND_SPIKE_MULTIPLE times the family's usual hourly spend (and SPEND_SPIKE_MIN_CREDITS), a `spend_spike` alert,
 * once an hour. Nothing refuses a spike.
 */
export async function countSpend(
  trx: Transaction<Database>,
  config: Config,
  accountId: number,
  charges: readonly number[],
  now: number,
): Promise<void> {
  const units = charges.reduce((a, b) => a + b, 0);
  if (units <= 0) return;
  const day = formatLocalDate(now);
  const hour = Math.floor(now / HOUR);
  const row = (await addSpend(trx, { accountId, day, units, hour })).rows[0];
  const spent = row === undefined ? undefined : toSpend(row);
  if (spent === undefined || (spent.limit !== null && spent.units > spent.limit))
    throw new Refusal('daily_spend_limit');
  if (spent.units === units) spent.usual = await rememberUsualSpend(trx, spent.root, day);
  const cheapest = Math.min(...charges.filter((c) => c > 0));
  if (spent.limit !== null && spent.limit_alerted === 0 && spent.limit - spent.units < cheapest)
    await limitReached(trx, config, spent, day, now);
  const floor = toUnits(config.SPEND_SPIKE_MIN_CREDITS);
  if (
    spent.hourUnits >= floor &&
    spent.hourUnits > config.SPEND_SPIKE_MULTIPLE * spent.usual &&
    spent.spikeHour !== hour
  )
    await spike(trx, config, spent, day, hour, now);
}

interface Spent {
  root: number;
  units: number;
  limit: number | null;
  hourUnits: number;
  usual: number;
  limit_alerted: number;
  spikeHour: number | null;
}

const toSpend = (r: SpendRow): Spent => ({
  root: Number(r.root_account_id),
  units: Number(r.units),
  limit: r.limit_units === null ? null : Number(r.limit_units),
  hourUnits: Number(r.hour_units),
  usual: Number(r.usual_hour_units),
  limit_alerted: Number(r.limit_alerted),
  spikeHour: r.spike_hour === null ? null : Number(r.spike_hour),
});

/** The day's first debit reads the family's usual hourly spend (the 7 days before) once, for the day's spike checks. */
async function rememberUsualSpend(trx: Executor, root: number, day: string): Promise<number> {
  const since = formatLocalDate(parseLocal(day)! - USUAL_DAYS * DAY + HOUR);
  const row = await trx
    .selectFrom('spend_days')
    .select((eb) => eb.fn.sum<number>('units').as('units'))
    .where('root_account_id', '=', root)
    .where('day', '>=', since)
    .where('day', '<', day)
    .executeTakeFirst();
  const usual = Math.floor(Number(row?.units ?? 0) / (USUAL_DAYS * 24));
  await trx
    .updateTable('spend_days')
    .set({ usual_hour_units: usual })
    .where('root_account_id', '=', root)
    .where('day', '=', day)
    .execute();
  return usual;
}

async function limitReached(trx: Transaction<Database>, config: Config, s: Spent, day: string, now: number) {
  const claimed = await trx
    .updateTable('spend_days')
    .set({ limit_alerted: 1 })
    .where('root_account_id', '=', s.root)
    .where('day', '=', day)
    .where('limit_alerted', '=', 0)
    .returning('root_account_id')
    .executeTakeFirst();
  if (!claimed) return;
  const account = await emailOf(trx, s.root);
  const spent = String(toCredits(s.units));
  const limit = String(toCredits(s.limit!));
  await recordEvents(trx, [
    {
      accountId: s.root,
      type: 'spend_limit',
      reference: '',
      payload: { type: 'spend_limit', spent, limit, date: formatCompact(now) },
    },
  ]);
  await alertOnce(trx, config, 'spend_limit', `${s.root}:${day}`, now, { account, spent, limit, day });
}

async function spike(trx: Transaction<Database>, config: Config, s: Spent, day: string, hour: number, now: number) {
  const claimed = await trx
    .updateTable('spend_days')
    .set({ spike_hour: hour })
    .where('root_account_id', '=', s.root)
    .where('day', '=', day)
    .where((eb) => eb.or([eb('spike_hour', 'is', null), eb('spike_hour', '!=', hour)]))
    .returning('root_account_id')
    .executeTakeFirst();
  if (!claimed) return;
  await alertOnce(trx, config, 'spend_spike', `${s.root}:${hour}`, now, {
    account: await emailOf(trx, s.root),
    hour_spent: String(toCredits(s.hourUnits)),
    usual_hour: String(toCredits(s.usual)),
  });
}

/** An alert whose once-ness the caller's own flag keeps: its episode opens and closes at once (no alert for the close). */
async function alertOnce(
  trx: Executor,
  config: Config,
  type: 'spend_limit' | 'spend_spike',
  subject: string,
  now: number,
  fields: Record<string, string>,
) {
  await openEpisode(trx, config, { type, subject, since: now, body: { type, ...fields, since: isoTime(now) } });
  await closeEpisode(trx, config, type, subject);
}

async function emailOf(db: Executor, accountId: number): Promise<string> {
  const row = await db.selectFrom('accounts').select('email').where('id', '=', accountId).executeTakeFirst();
  return row?.email ?? '';
}

/** Sets (units) or removes (null) a family's daily spending limit. */
export async function setDailySpendLimit(db: Executor, rootAccountId: number, units: number | null): Promise<void> {
  if (units === null) {
    await db.deleteFrom('spend_limits').where('root_account_id', '=', rootAccountId).execute();
    return;
  }
  await db
    .insertInto('spend_limits')
    .values({ root_account_id: rootAccountId, daily_units: units })
    .onConflict((oc) => oc.column('root_account_id').doUpdateSet({ daily_units: units }))
    .execute();
}

/** The family's daily spending limit in credit units, or null. */
export async function dailySpendLimit(db: Executor, rootAccountId: number): Promise<number | null> {
  const row = await db
    .selectFrom('spend_limits')
    .select('daily_units')
    .where('root_account_id', '=', rootAccountId)
    .executeTakeFirst();
  return row ? Number(row.daily_units) : null;
}

/** Days of spend older than the spike check's baseline are of no further use. */
export async function pruneSpendDays(db: Executor, now: number): Promise<number> {
  const result = await db
    .deleteFrom('spend_days')
    .where('day', '<', formatLocalDate(now - (USUAL_DAYS + 1) * DAY))
    .executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
