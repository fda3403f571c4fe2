import { sql } from 'kysely';
import { isPostgres, type Executor } from '../../db/engine.js';
import { perTurn } from '../../lib/per-turn.js';
import { compiledOnce } from '../../db/prepared.js';
import type { PrunedMessages } from '../../feature.js';

/** Registers (or re-registers, updating its RCS link) a sender. */
export async function upsertSender(db: Executor, accountId: number, name: string, rcs: boolean): Promise<void> {
  await db
    .insertInto('senders')
    .values({ account_id: accountId, name, rcs: rcs ? 1 : 0, created_at: Date.now() })
    .onConflict((oc) => oc.columns(['account_id', 'name']).doUpdateSet({ rcs: rcs ? 1 : 0 }))
    .execute();
}

/** The account's senders by name (`senders list`, the operator's account page). */
export async function sendersOf(db: Executor, accountId: number): Promise<Array<{ name: string; rcs: boolean }>> {
  const rows = await db
    .selectFrom('senders')
    .select(['name', 'rcs'])
    .where('account_id', '=', accountId)
    .orderBy('name')
    .execute();
  return rows.map((r) => ({ name: r.name, rcs: Number(r.rcs) === 1 }));
}

/** Removes one of the account's senders; whether it had it. */
export async function deleteSender(db: Executor, accountId: number, name: string): Promise<boolean> {
  const gone = await db
    .deleteFrom('senders')
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .executeTakeFirst();
  return Number(gone.numDeletedRows) > 0;
}

/**
 * Whether the national number falls in an imported landline range: one indexed query over its prefixes. On
 * PostgreSQL the numbers asked about in one turn of the event loop share one query (perTurn), a round trip for all.
 */
export async function isLandline(db: Executor, countryCode: string, national: string): Promise<boolean> {
  // Not inside a transaction: the shared query runs after the caller's turn, when its transaction may have ended.
  if (isPostgres(db) && !db.isTransaction) {
    let lookup = landlineLookups.get(db);
    if (!lookup) landlineLookups.set(db, (lookup = perTurn((numbers: string[]) => landlinesAmong(db, numbers))));
    return (await lookup(`${countryCode}:${national}`)) === true;
  }
  return (await landlineQuery(db, countryCode, ...prefixesOf(national))).rows.length > 0;
}

const prefixesOf = (national: string) => Array.from({ length: national.length }, (_, i) => national.slice(0, i + 1));

const landlineLookups = new WeakMap<Executor, (number: string) => Promise<boolean | undefined>>();

/** Of numbers written `country:national`, those in a landline range: one query over every prefix of every number. */
async function landlinesAmong(db: Executor, numbers: string[]): Promise<Map<string, boolean>> {
  const split = numbers.map((n) => {
    const [countryCode, national] = n.split(':');
    return { n, countryCode, prefixes: prefixesOf(national) };
  });
  const rows = await db
    .selectFrom('landline_prefixes')
    .select(['country_code', 'prefix'])
    .where(sql<boolean>`country_code = any(${[...new Set(split.map((s) => s.countryCode))]})`)
    .where(sql<boolean>`prefix = any(${[...new Set(split.flatMap((s) => s.prefixes))]})`)
    .execute();
  const ranges = new Set(rows.map((r) => `${r.country_code}:${r.prefix}`));
  return new Map(split.map((s) => [s.n, s.prefixes.some((p) => ranges.has(`${s.countryCode}:${p}`))]));
}

/** Compiled once per number length (numbers are validated, so a few). Every single-recipient send runs one. */
const landlineQuery = compiledOnce((db, countryCode: string, ...prefixes: string[]) =>
  db
    .selectFrom('landline_prefixes')
    .select('prefix')
    .where('country_code', '=', countryCode)
    .where('prefix', 'in', prefixes)
    .limit(1),
);

export interface LandlineRow {
  countryCode: string;
  prefix: string;
  description: string | null;
}

/** Imports landline prefixes (replacing the whole table when `replace`), in one transaction. */
export async function importLandlines(db: Executor, rows: LandlineRow[], replace: boolean): Promise<void> {
  if (replace) await db.deleteFrom('landline_prefixes').execute();
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows
      .slice(i, i + 500)
      .map((r) => ({ country_code: r.countryCode, prefix: r.prefix, description: r.description }));
    await db
      .insertInto('landline_prefixes')
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['country_code', 'prefix']).doUpdateSet({ description: (eb) => eb.ref('excluded.description') }),
      )
      .execute();
  }
}

export async function insertShortLink(
  db: Executor,
  link: { code: string; accountId: number; campaignId: number; url: string },
): Promise<void> {
  await db
    .insertInto('short_links')
    .values({
      code: link.code,
      account_id: link.accountId,
      campaign_id: link.campaignId,
      url: link.url,
      created_at: Date.now(),
      last_click_at: null,
    })
    .execute();
}

/** Where a short link goes, without counting a click. */
export async function shortLinkTarget(db: Executor, code: string): Promise<string | undefined> {
  return (await db.selectFrom('short_links').select('url').where('code', '=', code).executeTakeFirst())?.url;
}

/** Counts a click (one conditional UPDATE) and returns where to go, or undefined for an unknown code. */
export async function clickShortLink(db: Executor, code: string): Promise<string | undefined> {
  const row = await db
    .updateTable('short_links')
    .set({ clicks: sql`clicks + 1`, last_click_at: Date.now() })
    .where('code', '=', code)
    .returning('url')
    .executeTakeFirst();
  return row?.url;
}

/** The prefixes in the landline numbering plan. */
export async function countLandlines(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('landline_prefixes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Message retention: the short links of campaigns whose messages are all pruned (the link answers 404 from then on). */
export async function forgetShortLinks(db: Executor, batch: PrunedMessages): Promise<number> {
  if (batch.campaignIds.length === 0) return 0;
  const r = await db.deleteFrom('short_links').where('campaign_id', 'in', batch.campaignIds).executeTakeFirst();
  return Number(r.numDeletedRows);
}
