import { sql, type Selectable, type Updateable, type UpdateQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import { affected, type Executor } from '../../db/engine.js';
import type { OtpSettingsTable, OtpVerificationsTable } from './tables.js';

export type Verification = Selectable<OtpVerificationsTable>;
export type OtpSettings = Selectable<OtpSettingsTable>;

export interface NumberKey {
  accountId: number;
  countryCode: string;
  phoneNumber: string;
}

export async function findVerification(db: Executor, k: NumberKey): Promise<Verification | undefined> {
  return db
    .selectFrom('otp_verifications')
    .selectAll()
    .where('account_id', '=', k.accountId)
    .where('country_code', '=', k.countryCode)
    .where('phone_number', '=', k.phoneNumber)
    .executeTakeFirst();
}

/** The number's one row (state none when new); parallel callers all get the same row. */
export async function ensureVerification(db: Executor, k: NumberKey, now: number): Promise<void> {
  await db
    .insertInto('otp_verifications')
    .values({ account_id: k.accountId, country_code: k.countryCode, phone_number: k.phoneNumber, state: 'none', version: 0, round: 0, attempts_remaining: 0, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'country_code', 'phone_number']).doNothing())
    .execute();
}

/** Applies a transition decided on the row at `version`; false when the row changed meanwhile. */
export async function applyIfUnchanged(db: Executor, id: number, version: number, changes: Updateable<OtpVerificationsTable>): Promise<boolean> {
  const result = await db
    .updateTable('otp_verifications')
    .set({ ...changes, version: version + 1 })
    .where('id', '=', id)
    .where('version', '=', version)
    .executeTakeFirst();
  return affected(result) === 1;
}

/** The round of this code, still open: pending, attempts left, not expired. */
const openRound =
  (id: number, codeHash: string, now: number) =>
  <O>(qb: UpdateQueryBuilder<Database, 'otp_verifications', 'otp_verifications', O>) =>
    qb.where('id', '=', id).where('code_hash', '=', codeHash).where('state', '=', 'pending').where('attempts_remaining', '>', 0).where('expires_at', '>', now);

/** pending → verified for the right code; false when another request got there first. */
export async function markVerified(db: Executor, id: number, codeHash: string, now: number): Promise<boolean> {
  const result = await openRound(id, codeHash, now)(
    db
      .updateTable('otp_verifications')
      .set({ state: 'verified', verified_at: now, updated_at: now, code_hash: null, code_enc: null, version: sql`version + 1` }),
  ).executeTakeFirst();
  return affected(result) === 1;
}

/**
 * One wrong code: takes an attempt, and the last one locks. Undefined when
 * the round is no longer open (used up, verified, rotated or expired).
 */
export async function takeAttempt(db: Executor, id: number, codeHash: string, now: number): Promise<{ attempts_remaining: number; state: string } | undefined> {
  return openRound(id, codeHash, now)(
    db.updateTable('otp_verifications').set({
      attempts_remaining: sql`attempts_remaining - 1`,
      state: sql`CASE WHEN attempts_remaining <= 1 THEN 'locked' ELSE 'pending' END`,
      locked_at: sql`CASE WHEN attempts_remaining <= 1 THEN ${now} ELSE locked_at END`,
      updated_at: now,
      version: sql`version + 1`,
    }),
  )
    .returning(['attempts_remaining', 'state'])
    .executeTakeFirst();
}

/**
 * Once the carrier has the message (or refused it), its stored text keeps the
 * code masked: reports show it, and the code lives only as its HMAC.
 */
export async function maskSentText(db: Executor, messageIds: number[], masked: string): Promise<void> {
  if (messageIds.length === 0) return;
  await db.updateTable('messages').set({ text: masked }).where('id', 'in', messageIds).where('stage', '>', 0).execute();
}

/** Any state → none: the code is erased. */
export async function resetToNone(db: Executor, k: NumberKey, now: number): Promise<void> {
  await db
    .updateTable('otp_verifications')
    .set({ state: 'none', code_hash: null, code_enc: null, attempts_remaining: 0, expires_at: null, last_sent_at: null, updated_at: now, version: sql`version + 1` })
    .where('account_id', '=', k.accountId)
    .where('country_code', '=', k.countryCode)
    .where('phone_number', '=', k.phoneNumber)
    .execute();
}

/** New codes sent to a number since `since`, and the oldest of them. */
export async function startsSince(db: Executor, k: NumberKey, since: number): Promise<{ count: number; oldest: number | null }> {
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

/** The settings that apply: the account's own row, else its parent's (a sub-account inherits them whole). */
export async function effectiveSettings(db: Executor, accountId: number): Promise<OtpSettings | undefined> {
  const rows = await db
    .selectFrom('accounts')
    .innerJoin('otp_settings', (join) => join.on((eb) => eb.or([eb('otp_settings.account_id', '=', eb.ref('accounts.id')), eb('otp_settings.account_id', '=', eb.ref('accounts.parent_id'))])))
    .selectAll('otp_settings')
    .where('accounts.id', '=', accountId)
    .execute();
  return rows.find((r) => r.account_id === accountId) ?? rows[0];
}

export async function saveSettings(db: Executor, accountId: number, changes: Partial<Pick<OtpSettings, 'allowed_countries' | 'max_per_number_hour'>>, now: number): Promise<void> {
  await db
    .insertInto('otp_settings')
    .values({ account_id: accountId, allowed_countries: null, max_per_number_hour: null, ...changes, updated_at: now })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ ...changes, updated_at: now }))
    .execute();
}

/** The top-level account: the account's parent, or itself. Per-number daily caps count on it, so sub-accounts cannot multiply them. */
export async function rootAccountId(db: Executor, accountId: number): Promise<number> {
  const row = await db.selectFrom('accounts').select('parent_id').where('id', '=', accountId).executeTakeFirst();
  return row?.parent_id ?? accountId;
}

export interface DayKey {
  rootAccountId: number;
  countryCode: string;
  phoneNumber: string;
  day: string;
}

/**
 * Counts one send (and a round when `round`) for the number today, only if
 * both stay within the caps: one conditional upsert, so parallel requests
 * cannot pass them. False when a cap is reached.
 */
export async function countDailySend(db: Executor, k: DayKey, round: boolean, caps: { rounds: number; sends: number }): Promise<boolean> {
  const r = round ? 1 : 0;
  if (r > caps.rounds || 1 > caps.sends) return false;
  // Earlier days' counts of this number are of no further use.
  await db
    .deleteFrom('otp_number_days')
    .where('root_account_id', '=', k.rootAccountId)
    .where('country_code', '=', k.countryCode)
    .where('phone_number', '=', k.phoneNumber)
    .where('day', '<', k.day)
    .execute();
  const row = await db
    .insertInto('otp_number_days')
    .values({ root_account_id: k.rootAccountId, country_code: k.countryCode, phone_number: k.phoneNumber, day: k.day, rounds: r, sends: 1 })
    .onConflict((oc) =>
      oc
        .columns(['root_account_id', 'country_code', 'phone_number', 'day'])
        .doUpdateSet({ rounds: sql`otp_number_days.rounds + ${r}`, sends: sql`otp_number_days.sends + 1` })
        .where(sql<boolean>`otp_number_days.rounds + ${r} <= ${caps.rounds} AND otp_number_days.sends + 1 <= ${caps.sends}`),
    )
    .returning('sends')
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

/** One more wrong code typed for the account (the /metrics figure). */
export async function countFailure(db: Executor, accountId: number): Promise<void> {
  await db
    .insertInto('otp_failure_counts')
    .values({ account_id: accountId, failures: 1 })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ failures: sql`otp_failure_counts.failures + 1` }))
    .execute();
}

export async function failureCounts(db: Executor): Promise<Array<{ account_id: number; failures: number }>> {
  const rows = await db.selectFrom('otp_failure_counts').select(['account_id', 'failures']).execute();
  return rows.map((r) => ({ account_id: Number(r.account_id), failures: Number(r.failures) }));
}
