import { sql } from 'kysely';
import type { Executor } from '../../db/engine.js';
import { compiledOnce } from '../../db/prepared.js';

/** A registered sender of the account, or undefined. */
export async function findSender(db: Executor, accountId: number, name: string) {
  return db
    .selectFrom('senders')
    .select(['name', 'rcs'])
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** Registers (or re-registers, updating its RCS link) a sender. */
export async function upsertSender(db: Executor, accountId: number, name: string, rcs: boolean): Promise<void> {
  await db
    .insertInto('senders')
    .values({ account_id: accountId, name, rcs: rcs ? 1 : 0, created_at: Date.now() })
    .onConflict((oc) => oc.columns(['account_id', 'name']).doUpdateSet({ rcs: rcs ? 1 : 0 }))
    .execute();
}

/** Whether the national number falls in an imported landline range: one indexed query over its prefixes. */
export async function isLandline(db: Executor, countryCode: string, national: string): Promise<boolean> {
  const prefixes = Array.from({ length: national.length }, (_, i) => national.slice(0, i + 1));
  return (await landlineQuery(db, countryCode, ...prefixes)).rows.length > 0;
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
