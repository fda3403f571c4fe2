import { sql, type Selectable, type Updateable, type UpdateQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Executor } from '../../db/engine.js';
import { prepared } from '../../db/prepared.js';
import type { OtpSettingsTable, OtpVerificationsTable } from './tables.js';

export type Verification = Selectable<OtpVerificationsTable>;
export type OtpSettings = Selectable<OtpSettingsTable>;

export interface NumberKey {
  accountId: number;
  countryCode: string;
  phoneNumber: string;
}

const selectVerification = prepared<{ accountId: number; countryCode: string; phoneNumber: string }, Verification>(
  (db, slot) =>
    db
      .selectFrom('otp_verifications')
      .selectAll()
      .where('account_id', '=', slot('accountId'))
      .where('country_code', '=', slot('countryCode'))
      .where('phone_number', '=', slot('phoneNumber')),
);

export async function findVerification(db: Executor, k: NumberKey): Promise<Verification | undefined> {
  return (await selectVerification(db, { ...k })).rows[0];
}

const upsertVerification = prepared<
  { accountId: number; countryCode: string; phoneNumber: string; now: number },
  Verification
>((db, slot) =>
  db
    .insertInto('otp_verifications')
    .values({
      account_id: slot('accountId'),
      country_code: slot('countryCode'),
      phone_number: slot('phoneNumber'),
      state: 'none',
      version: 0,
      round: 0,
      attempts_remaining: 0,
      created_at: slot('now'),
      updated_at: slot('now'),
    })
    // A write that changes nothing, so that an existing row is returned too (and, on PostgreSQL, locked until the transaction ends: parallel creates queue here instead of retrying).
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'country_code', 'phone_number'])
        .doUpdateSet({ version: sql`otp_verifications.version` }),
    )
    .returningAll(),
);

/** The number's one row, inserted (state none) when new; parallel callers all get the same row. */
export async function ensureVerification(db: Executor, k: NumberKey, now: number): Promise<Verification> {
  return (await upsertVerification(db, { ...k, now })).rows[0]!;
}

type Changes = Updateable<OtpVerificationsTable>;

/** One prepared UPDATE per set of columns a transition writes (a handful, all named in code). */
const transitions = new Map<string, ReturnType<typeof prepared<Record<string, unknown>, never>>>();

/** Applies a transition decided on the row at `version`; false when the row changed meanwhile. */
export async function applyIfUnchanged(db: Executor, id: number, version: number, changes: Changes): Promise<boolean> {
  const columns = Object.keys(changes).sort() as Array<keyof Changes & string>;
  const shape = columns.join(',');
  let update = transitions.get(shape);
  if (!update) {
    update = prepared<Record<string, unknown>, never>((db, slot) =>
      db
        .updateTable('otp_verifications')
        .set(Object.fromEntries(columns.map((c) => [c, slot(c)])))
        .set({ version: slot('$next') })
        .where('id', '=', slot('$id'))
        .where('version', '=', slot('$version')),
    );
    transitions.set(shape, update);
  }
  const result = await update(db, { ...changes, $next: version + 1, $id: id, $version: version });
  return Number(result.numAffectedRows ?? 0n) === 1;
}

/** The round of this code, still open: pending, attempts left, not expired. */
const openRound =
  (id: number, codeHash: string, now: number) =>
  <O>(qb: UpdateQueryBuilder<Database, 'otp_verifications', 'otp_verifications', O>) =>
    qb
      .where('id', '=', id)
      .where('code_hash', '=', codeHash)
      .where('state', '=', 'pending')
      .where('attempts_remaining', '>', 0)
      .where('expires_at', '>', now);

type RoundParams = { id: number; codeHash: string; now: number };

const verifyRound = prepared<RoundParams, { pumping_counted: number }>((db, slot) =>
  openRound(
    slot('id'),
    slot('codeHash'),
    slot('now'),
  )(
    db.updateTable('otp_verifications').set({
      state: 'verified',
      verified_at: slot('now'),
      updated_at: slot('now'),
      code_hash: null,
      code_enc: null,
      version: sql`version + 1`,
    }),
  ).returning('pumping_counted'),
);

/**
 * pending → verified for the right code: whether the code counted toward the pumping guard, or false when another
 * request got there first.
 */
export async function markVerified(
  db: Executor,
  id: number,
  codeHash: string,
  now: number,
): Promise<{ pumpingCounted: boolean } | false> {
  const row = (await verifyRound(db, { id, codeHash, now })).rows[0];
  return row === undefined ? false : { pumpingCounted: Number(row.pumping_counted) === 1 };
}

const failRound = prepared<RoundParams, { attempts_remaining: number; state: string }>((db, slot) =>
  openRound(
    slot('id'),
    slot('codeHash'),
    slot('now'),
  )(
    db.updateTable('otp_verifications').set({
      attempts_remaining: sql`attempts_remaining - 1`,
      state: sql`CASE WHEN attempts_remaining <= 1 THEN 'locked' ELSE 'pending' END`,
      updated_at: slot('now'),
      version: sql`version + 1`,
    }),
  ).returning(['attempts_remaining', 'state']),
);

/**
 * One wrong code: takes an attempt, and the last one locks. Undefined when
 * the round is no longer open (used up, verified, rotated or expired).
 */
export async function takeAttempt(
  db: Executor,
  id: number,
  codeHash: string,
  now: number,
): Promise<{ attempts_remaining: number; state: string } | undefined> {
  return (await failRound(db, { id, codeHash, now })).rows[0];
}

/** The rotation cooldown (OTP_LOCK_COOLDOWN_SECONDS) starts now for this verification, also through a delete. */
export async function startLockCooldown(db: Executor, id: number, now: number): Promise<void> {
  await db
    .updateTable('otp_verifications')
    .set({ locked_at: now, version: sql`version + 1` })
    .where('id', '=', id)
    .execute();
}

/** Whether every one of these messages has left stage 0 (handed over, or closed), by whichever process. */
export async function allHandedOver(db: Executor, messageIds: number[]): Promise<boolean> {
  if (messageIds.length === 0) return true;
  const waiting = await db
    .selectFrom('messages')
    .select('id')
    .where('id', 'in', messageIds)
    .where('stage', '=', 0)
    .executeTakeFirst();
  return waiting === undefined;
}

/** Any state → none: the code is erased. */
export async function resetToNone(db: Executor, k: NumberKey, now: number): Promise<void> {
  await db
    .updateTable('otp_verifications')
    .set({
      state: 'none',
      code_hash: null,
      code_enc: null,
      attempts_remaining: 0,
      expires_at: null,
      last_sent_at: null,
      updated_at: now,
      version: sql`version + 1`,
    })
    .where('account_id', '=', k.accountId)
    .where('country_code', '=', k.countryCode)
    .where('phone_number', '=', k.phoneNumber)
    .execute();
}

/** New codes sent to a number since `since`, and the oldest of them. */
export async function startsSince(
  db: Executor,
  k: NumberKey,
  since: number,
): Promise<{ count: number; oldest: number | null }> {
  const row = await db
    .selectFrom('otp_starts')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min<number>('started_at').as('oldest')])
    .where('account_id', '=', k.accountId)
    .where('country_code', '=', k.countryCode)
    .where('phone_number', '=', k.phoneNumber)
    .where('started_at', '>', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: row.oldest === null ? null : Number(row.oldest) };
}

export async function recordStart(db: Executor, k: NumberKey, now: number): Promise<number> {
  // Rows older than the hour counted are of no further use.
  await db
    .deleteFrom('otp_starts')
    .where('account_id', '=', k.accountId)
    .where('country_code', '=', k.countryCode)
    .where('phone_number', '=', k.phoneNumber)
    .where('started_at', '<=', now - 3600_000)
    .execute();
  const row = await db
    .insertInto('otp_starts')
    .values({ account_id: k.accountId, country_code: k.countryCode, phone_number: k.phoneNumber, started_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function forgetStart(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('otp_starts').where('id', '=', id).execute();
}

/** The account's own settings row. */
export async function findSettings(db: Executor, accountId: number): Promise<OtpSettings | undefined> {
  return db.selectFrom('otp_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/** The account's newest verifications (as the panel lists them: never a code). */
export async function recentVerifications(db: Executor, accountId: number, limit: number) {
  return db
    .selectFrom('otp_verifications')
    .select([
      'id',
      'country_code',
      'phone_number',
      'state',
      'attempts_remaining',
      'created_at',
      'verified_at',
      'channel',
    ])
    .where('account_id', '=', accountId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** What a new code needs to know of the caller. */
export interface OtpCaller {
  /** The account's parent, or itself. Per-number daily caps count on it, so sub-accounts cannot multiply them. */
  rootAccountId: number;
  allowedCountries: string | null;
  maxPerNumberHour: number | null;
}

const selectOtpCaller = prepared<
  { accountId: number },
  {
    parent_id: number | null;
    has_own: number;
    own_countries: string | null;
    own_hour: number | null;
    parent_countries: string | null;
    parent_hour: number | null;
  }
>((db, slot) =>
  // Scalar subqueries, not LEFT JOINs: on SQLite the joins cost some 12 µs a call (a Bloom filter built for each
  // run), the subqueries under 1 µs; every new code reads this.
  db
    .selectFrom('accounts')
    .select((eb) => {
      const setting = (column: 'allowed_countries' | 'max_per_number_hour' | 'account_id', of: 'id' | 'parent_id') =>
        eb
          .selectFrom('otp_settings')
          .select(`otp_settings.${column}`)
          .whereRef('otp_settings.account_id', '=', `accounts.${of}`);
      return [
        'accounts.parent_id',
        setting('allowed_countries', 'id').as('own_countries'),
        setting('max_per_number_hour', 'id').as('own_hour'),
        setting('allowed_countries', 'parent_id').as('parent_countries'),
        setting('max_per_number_hour', 'parent_id').as('parent_hour'),
        eb
          .case()
          .when(eb.exists(setting('account_id', 'id')))
          .then(1)
          .else(0)
          .end()
          .as('has_own'),
      ];
    })
    .where('accounts.id', '=', slot('accountId')),
);

/** The caller's OTP settings (its own row, else its parent's: a sub-account inherits them whole) and its top-level account, in one query. */
export async function otpCaller(db: Executor, accountId: number): Promise<OtpCaller> {
  const row = (await selectOtpCaller(db, { accountId })).rows[0];
  if (!row) return { rootAccountId: accountId, allowedCountries: null, maxPerNumberHour: null };
  const own = Number(row.has_own) === 1;
  const hour = own ? row.own_hour : row.parent_hour;
  return {
    rootAccountId: row.parent_id === null ? accountId : Number(row.parent_id),
    allowedCountries: own ? row.own_countries : row.parent_countries,
    maxPerNumberHour: hour === null ? null : Number(hour),
  };
}

export async function saveSettings(
  db: Executor,
  accountId: number,
  changes: Partial<Pick<OtpSettings, 'allowed_countries' | 'max_per_number_hour'>>,
  now: number,
): Promise<void> {
  await db
    .insertInto('otp_settings')
    .values({ account_id: accountId, allowed_countries: null, max_per_number_hour: null, ...changes, updated_at: now })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ ...changes, updated_at: now }))
    .execute();
}

export interface DayKey {
  rootAccountId: number;
  countryCode: string;
  phoneNumber: string;
  day: string;
}

const countToday = prepared<
  {
    root: number;
    countryCode: string;
    phoneNumber: string;
    day: string;
    r: number;
    maxRounds: number;
    maxSends: number;
  },
  { sends: number }
>((db, slot) =>
  db
    .insertInto('otp_number_days')
    .values({
      root_account_id: slot('root'),
      country_code: slot('countryCode'),
      phone_number: slot('phoneNumber'),
      day: slot('day'),
      rounds: slot('r'),
      sends: 1,
    })
    .onConflict((oc) =>
      oc
        .columns(['root_account_id', 'country_code', 'phone_number', 'day'])
        .doUpdateSet({ rounds: sql`otp_number_days.rounds + ${slot('r')}`, sends: sql`otp_number_days.sends + 1` })
        .where(
          sql<boolean>`otp_number_days.rounds + ${slot('r')} <= ${slot('maxRounds')} AND otp_number_days.sends + 1 <= ${slot('maxSends')}`,
        ),
    )
    .returning('sends'),
);

const forgetEarlierDays = prepared<{ root: number; countryCode: string; phoneNumber: string; day: string }, never>(
  (db, slot) =>
    db
      .deleteFrom('otp_number_days')
      .where('root_account_id', '=', slot('root'))
      .where('country_code', '=', slot('countryCode'))
      .where('phone_number', '=', slot('phoneNumber'))
      .where('day', '<', slot('day')),
);

/**
 * Counts one send (and a round when `round`) for the number today, only if
 * both stay within the caps: one conditional upsert, so parallel requests
 * cannot pass them. False when a cap is reached.
 */
export async function countDailySend(
  db: Executor,
  k: DayKey,
  round: boolean,
  caps: { rounds: number; sends: number },
): Promise<boolean> {
  const r = round ? 1 : 0;
  if (r > caps.rounds || 1 > caps.sends) return false;
  const key = { root: k.rootAccountId, countryCode: k.countryCode, phoneNumber: k.phoneNumber, day: k.day };
  const row = (await countToday(db, { ...key, r, maxRounds: caps.rounds, maxSends: caps.sends })).rows[0];
  if (row === undefined) return false;
  // The first send of the day for the number: earlier days' counts are of no further use.
  if (Number(row.sends) === 1) await forgetEarlierDays(db, key);
  return true;
}

/** Counts one round without a send (fresh attempts at the same code) for the number today, only within the round cap. */
export async function countDailyRound(db: Executor, k: DayKey, maxRounds: number): Promise<boolean> {
  const row = await db
    .insertInto('otp_number_days')
    .values({
      root_account_id: k.rootAccountId,
      country_code: k.countryCode,
      phone_number: k.phoneNumber,
      day: k.day,
      rounds: 1,
      sends: 0,
    })
    .onConflict((oc) =>
      oc
        .columns(['root_account_id', 'country_code', 'phone_number', 'day'])
        .doUpdateSet({ rounds: sql`otp_number_days.rounds + 1` })
        .where(sql<boolean>`otp_number_days.rounds + 1 <= ${maxRounds}`),
    )
    .returning('rounds')
    .executeTakeFirst();
  return row !== undefined;
}

/** Takes back a send the carrier refused (nothing reached the number). */
export async function uncountDailySend(db: Executor, k: DayKey, round: boolean): Promise<void> {
  await db
    .updateTable('otp_number_days')
    .set({ rounds: sql`rounds - ${round ? 1 : 0}`, sends: sql`sends - 1` })
    .where('root_account_id', '=', k.rootAccountId)
    .where('country_code', '=', k.countryCode)
    .where('phone_number', '=', k.phoneNumber)
    .where('day', '=', k.day)
    .where('sends', '>', 0)
    .execute();
}

/** Counts one locked round for the number today (one upsert, so parallel locks each count); the day's locks so far. */
export async function countDailyLock(db: Executor, k: DayKey): Promise<number> {
  const row = await db
    .insertInto('otp_number_days')
    .values({
      root_account_id: k.rootAccountId,
      country_code: k.countryCode,
      phone_number: k.phoneNumber,
      day: k.day,
      rounds: 0,
      sends: 0,
      locks: 1,
    })
    .onConflict((oc) =>
      oc
        .columns(['root_account_id', 'country_code', 'phone_number', 'day'])
        .doUpdateSet({ locks: sql`otp_number_days.locks + 1` }),
    )
    .returning('locks')
    .executeTakeFirstOrThrow();
  return Number(row.locks);
}

const addFailure = prepared<{ accountId: number }, never>((db, slot) =>
  db
    .insertInto('otp_failure_counts')
    .values({ account_id: slot('accountId'), failures: 1 })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ failures: sql`otp_failure_counts.failures + 1` })),
);

/** One more wrong code typed for the account (the /metrics figure). */
export async function countFailure(db: Executor, accountId: number): Promise<void> {
  await addFailure(db, { accountId });
}

export async function failureCounts(db: Executor): Promise<Array<{ account_id: number; failures: number }>> {
  const rows = await db.selectFrom('otp_failure_counts').select(['account_id', 'failures']).execute();
  return rows.map((r) => ({ account_id: Number(r.account_id), failures: Number(r.failures) }));
}
