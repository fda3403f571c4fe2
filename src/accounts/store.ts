import { CompiledQuery, sql, type Selectable } from 'kysely';
import type { Db, Executor } from '../db/engine.js';
import { affected } from '../db/engine.js';
import { compiledOnce } from '../db/prepared.js';
import type { AccountsTable } from '../db/schema.js';
import { normalEmail } from '../text/email.js';
import { MAX_BALANCE_CREDITS, toUnits } from './credits.js';
import { apiKeyHash, generateApiKey, openApiKey, sealApiKey } from './keys.js';
import { appendLedger, moveCredits, type Movement } from './ledger.js';

export { rearmed } from './ledger.js';

export type Account = Selectable<AccountsTable>;

/**
 * What a request knows of its caller, nothing secret. `allow_ips` and
 * `rate_limit_per_sec` are the effective ones: a sub-account without its own
 * uses its parent's. `rate_bucket` is the account whose rate-limit bucket the
 * request counts on: the parent's, shared, when the sub-account inherits the
 * parent's limit (free sub-accounts cannot multiply it), its own otherwise.
 */
export type AuthenticatedAccount = Pick<
  Account,
  'id' | 'email' | 'credits' | 'parent_id' | 'allow_ips' | 'rate_limit_per_sec'
> & {
  rate_bucket: number;
  /** 1 when the account (or, without its own setting, its parent) sends long SMS / Unicode over HTTP. */
  long_sms: number;
  unicode_sms: number;
  /** The API key the request came with (its id, never the key): the trace shows what accepted a message. */
  key_id?: number | string;
};

/**
 * The account of an email as typed, normalised as new emails are stored (NFKC, lower case: text/email.ts); an email
 * stored before that rule, in another form, is still found by the form it was stored in.
 */
export async function findAccountByEmail(db: Executor, email: string): Promise<Account | undefined> {
  const normal = normalEmail(email);
  const found = await db.selectFrom('accounts').selectAll().where('email', '=', normal).executeTakeFirst();
  if (found || normal === email.toLowerCase()) return found;
  return db.selectFrom('accounts').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

export async function findAccountById(db: Executor, id: number): Promise<Account | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * An active account as a caller, with the settings a sub-account without its
 * own inherits from its parent. A sub-account whose parent is archived is no
 * caller: the parent's row is read in the same query, so there is no moment
 * where a suspended family still passes.
 */
export function selectCaller(db: Executor) {
  return db
    .selectFrom('accounts')
    .leftJoin('accounts as parent', 'parent.id', 'accounts.parent_id')
    .select(['accounts.id', 'accounts.email', 'accounts.credits', 'accounts.parent_id'])
    .select([
      sql<string | null>`coalesce(accounts.allow_ips, parent.allow_ips)`.as('allow_ips'),
      sql<number | null>`coalesce(accounts.rate_limit_per_sec, parent.rate_limit_per_sec)`.as('rate_limit_per_sec'),
      sql<number>`case when accounts.rate_limit_per_sec is null and accounts.parent_id is not null then accounts.parent_id else accounts.id end`.as(
        'rate_bucket',
      ),
      sql<number>`coalesce(accounts.long_sms, parent.long_sms, 0)`.as('long_sms'),
      sql<number>`coalesce(accounts.unicode_sms, parent.unicode_sms, 0)`.as('unicode_sms'),
    ])
    .where('accounts.status', '=', 'active')
    .where((eb) => eb.or([eb('accounts.parent_id', 'is', null), eb('parent.status', '=', 'active')]));
}

/**
 * In a query on `accounts` joined to its parent as `parent`: the allow-list
 * the panel applies to the account (its own, else its parent's) when the
 * account or its parent asked for it (panel_allow_ip); null otherwise.
 */
export const panelAllowList = sql<string | null>`case when accounts.panel_allow_ip = 1 or parent.panel_allow_ip = 1
  then coalesce(accounts.allow_ips, parent.allow_ips) end`;

/** The caller behind a key that is not revoked; the caller narrows it to one key. */
export function selectCallerOfKey(db: Executor) {
  return selectCaller(db)
    .innerJoin('api_keys', 'api_keys.account_id', 'accounts.id')
    .select('api_keys.id as key_id')
    .where('api_keys.revoked_at', 'is', null);
}

const KEY_PLACEHOLDER = '\u0000key-hash';
const compiledKeyLookups = new WeakMap<Db, { sql: string; parameters: readonly unknown[]; slot: number }>();

/**
 * The active account behind an API key, or undefined (unknown, revoked or
 * archived). Every API request runs it, so the query is compiled once per
 * database and only its parameter changes: building it each time cost more
 * than running it. On a SQLite file it runs on the read connection (Db.readRow).
 */
export async function findAccountByKey(db: Db, key: string): Promise<AuthenticatedAccount | undefined> {
  let compiled = compiledKeyLookups.get(db);
  if (!compiled) {
    const query = selectCallerOfKey(db.kysely).where('api_keys.key_hash', '=', KEY_PLACEHOLDER).limit(1).compile();
    compiled = { sql: query.sql, parameters: query.parameters, slot: query.parameters.indexOf(KEY_PLACEHOLDER) };
    compiledKeyLookups.set(db, compiled);
  }
  const parameters = [...compiled.parameters];
  parameters[compiled.slot] = apiKeyHash(key);
  if (db.readRow) return db.readRow<AuthenticatedAccount>(compiled.sql, parameters);
  const result = await db.kysely.executeQuery<AuthenticatedAccount>(CompiledQuery.raw(compiled.sql, parameters));
  return result.rows[0];
}

/**
 * The active accounts behind several API keys in one query (PostgreSQL: `key_hash = ANY`, one statement text for any
 * number of keys), by key hash; a key that is unknown, revoked or archived has no entry.
 */
export async function findAccountsByKeyHashes(
  db: Db,
  hashes: readonly string[],
): Promise<Map<string, AuthenticatedAccount>> {
  const rows = await selectCallerOfKey(db.kysely)
    .select('api_keys.key_hash')
    .where(sql<boolean>`api_keys.key_hash = any(${[...hashes]})`)
    .execute();
  const found = new Map<string, AuthenticatedAccount>();
  for (const { key_hash, ...account } of rows) found.set(key_hash, account as AuthenticatedAccount);
  return found;
}

export interface NewAccount {
  email: string;
  passwordHash: string;
  credits?: number;
  parentId?: number | null;
}

/** Creates an account and its first API key; returns the account and the key in clear (shown once to the caller). */
export async function insertAccount(
  db: Executor,
  encryptionKey: Buffer,
  input: NewAccount,
): Promise<{ account: Account; apikey: string }> {
  const now = Date.now();
  const account = await db
    .insertInto('accounts')
    .values({
      email: normalEmail(input.email),
      password_hash: input.passwordHash,
      credits: input.credits ?? 0,
      parent_id: input.parentId ?? null,
      allow_ips: null,
      rate_limit_per_sec: null,
      created_at: now,
      archived_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const apikey = await issueKey(db, encryptionKey, account.id);
  return { account, apikey };
}

/** Revokes every key of the account and issues a new one. */
export async function rotateKey(db: Executor, encryptionKey: Buffer, accountId: number): Promise<string> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: Date.now() })
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .execute();
  return issueKey(db, encryptionKey, accountId);
}

async function issueKey(db: Executor, encryptionKey: Buffer, accountId: number): Promise<string> {
  const apikey = generateApiKey();
  await db
    .insertInto('api_keys')
    .values({
      account_id: accountId,
      key_hash: apiKeyHash(apikey),
      key_enc: sealApiKey(encryptionKey, apikey),
      created_at: Date.now(),
      revoked_at: null,
    })
    .execute();
  return apikey;
}

/** The account's current key in clear, decrypted with the server secret. */
export async function currentKey(db: Executor, encryptionKey: Buffer, accountId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select('key_enc')
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row ? openApiKey(encryptionKey, row.key_enc) : undefined;
}

/**
 * Adds (or, negative, withdraws) credit units with the movement's ledger entry (accounts' moveCredits). The update is
 * conditional, so a balance never goes below zero: returns false when it would, and when an addition would take it
 * past `maxUnits` (given: the operator's changes).
 */
export async function adjustCredits(
  db: Executor,
  accountId: number,
  units: number,
  movement: Movement,
  maxUnits?: number,
): Promise<boolean> {
  return (await moveCredits(db, accountId, units, movement, { maxUnits })) !== undefined;
}

/**
 * An operator's change of a balance (CLI, panel, operator API): as adjustCredits, an addition never past
 * MAX_BALANCE_CREDITS. An addition is a `credit` in the ledger, a withdrawal an `adjustment`.
 */
export const adjustCreditsByOperator = (
  db: Executor,
  accountId: number,
  units: number,
  by: { actor: string; reason?: string | null },
): Promise<boolean> =>
  adjustCredits(
    db,
    accountId,
    units,
    { kind: units < 0 ? 'adjustment' : 'credit', actor: by.actor, reason: by.reason ?? null },
    toUnits(MAX_BALANCE_CREDITS),
  );

/** What a debit tells its caller: `lowBalance` when it left the balance below the account's threshold with that crossing not reported yet. */
export interface Debit {
  lowBalance: boolean;
}

/** One send request's part of a debit: its units and its ledger entry's movement. */
export interface DebitPart {
  units: number;
  movement: Movement;
}

/**
 * Debits `units` only when the balance covers them (false otherwise). The one
 * way money leaves an account. The same statement says whether a low-balance
 * event is due (the caller then records it: webhooks' recordLowBalance), so a
 * send costs no extra statement when none is. `parts` are the send requests
 * the debit pays for (their units add up to `units`): one ledger entry each
 * that moved the balance, appended in one INSERT.
 */
export async function debitCredits(
  db: Executor,
  accountId: number,
  units: number,
  parts: readonly DebitPart[] = [],
): Promise<Debit | false> {
  if (units === 0) return { lowBalance: false };
  const row = (await debit(db, accountId, units)).rows[0];
  if (!row) return false;
  // Each request's balance after it: the requests after it in the batch are taken later.
  let balance = Number(row.credits) + units;
  const entries = parts
    .filter((p) => p.units > 0)
    .map((p) => ({ ...p.movement, accountId, units: -p.units, balanceAfter: (balance -= p.units) }));
  await appendLedger(db, entries);
  return { lowBalance: Number(row.low) === 1 };
}

// Every send debits: the statement is compiled once (see compiledOnce).
const debit = compiledOnce((db, accountId: number, units: number) =>
  db
    .updateTable('accounts')
    .set({ credits: sql`credits - ${units}` })
    .where('id', '=', accountId)
    .where('credits', '>=', units)
    .returning([
      'credits',
      sql<number>`case when credits < low_balance_units and low_balance_sent = 0 then 1 else 0 end`.as('low'),
    ]),
);

/**
 * The operator's archive: suspends an account and its whole family at once
 * (call inside a transaction). The account and its active sub-accounts are
 * archived and marked suspended (the sends they accepted are not handed over:
 * src/messaging/dispatch.ts), every key of theirs is revoked (which ends their
 * /auth tokens too) and their panel sessions end. Returns how many sub-accounts
 * it archived. Unarchiving is per account (unarchiveAccount): reviving the
 * parent leaves these archived.
 */
export async function archiveAccount(db: Executor, accountId: number): Promise<{ subaccounts: number }> {
  const now = Date.now();
  const archivedAt = sql<number>`coalesce(archived_at, ${now})`;
  await db
    .updateTable('accounts')
    .set({ status: 'archived', archived_at: archivedAt, suspended: 1 })
    .where('id', '=', accountId)
    .execute();
  const archived = await db
    .updateTable('accounts')
    .set({ status: 'archived', archived_at: now, suspended: 1 })
    .where('parent_id', '=', accountId)
    .where('status', '=', 'active')
    .returning(['id'])
    .execute();
  const family = [accountId, ...archived.map((a) => a.id)];
  await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('account_id', 'in', family)
    .where('revoked_at', 'is', null)
    .execute();
  await db.deleteFrom('panel_sessions').where('kind', '=', 'account').where('principal_id', 'in', family).execute();
  return { subaccounts: family.length - 1 };
}

/**
 * archived → active for this one account, with a new key (its keys were
 * revoked when it was archived); undefined when it was not archived. A
 * sub-account comes back only while its parent is active.
 */
export async function unarchiveAccount(
  db: Executor,
  encryptionKey: Buffer,
  accountId: number,
): Promise<string | undefined> {
  const revived = await db
    .updateTable('accounts')
    .set({ status: 'active', archived_at: null, suspended: 0 })
    .where('id', '=', accountId)
    .where('status', '=', 'archived')
    .where((eb) =>
      eb.or([
        eb('parent_id', 'is', null),
        eb.exists(
          eb
            .selectFrom('accounts as parent')
            .select('parent.id')
            .whereRef('parent.id', '=', 'accounts.parent_id')
            .where('parent.status', '=', 'active'),
        ),
      ]),
    )
    .executeTakeFirst();
  if (affected(revived) !== 1) return undefined;
  return rotateKey(db, encryptionKey, accountId);
}

/** The settings `accounts set` changes on the account row itself. */
export type AccountSettingChanges = Partial<
  Pick<
    Account,
    | 'webhook_method'
    | 'allow_ips'
    | 'panel_allow_ip'
    | 'rate_limit_per_sec'
    | 'max_subaccounts'
    | 'low_balance_units'
    | 'low_balance_sent'
    | 'credit_value'
    | 'long_sms'
    | 'unicode_sms'
  >
>;

export async function updateAccountSettings(db: Executor, accountId: number, changes: AccountSettingChanges) {
  if (Object.keys(changes).length === 0) return;
  await db.updateTable('accounts').set(changes).where('id', '=', accountId).execute();
}

/** The account's low-balance threshold as stored (null: none). */
export async function lowBalanceUnits(db: Executor, accountId: number) {
  const row = await db
    .selectFrom('accounts')
    .select('low_balance_units')
    .where('id', '=', accountId)
    .executeTakeFirst();
  return row?.low_balance_units;
}
