import type { WithDb } from '../../context.js';
import { shownEmail } from '../../accounts/subaccount-email.js';
import { keywordForm } from '../../text/keyword.js';
import { deleteRoute, insertRoute, selectReplies, selectRoutes, type StoredReply, type StoredRoute } from './store.js';
export type { StoredReply } from './store.js';

/** A route as the CLI (and the operator API) show it: null where it takes any. */
export interface MoRoute {
  id: number;
  email: string;
  number: string | null;
  keyword: string | null;
}

/** What `mo-routes add` asks for, as typed. */
export interface MoRouteInput {
  number?: string;
  keyword?: string;
}

const NUMBER = /^\d{3,15}$/;
/** A keyword is one word of letters and digits (it is compared upper case, without accents). */
const KEYWORD = /^[\p{L}\p{N}]{1,30}$/u;

/** The route's key as stored ('' for any), or what is wrong with the input. */
export function routeKey(input: MoRouteInput): { number: string; keyword: string } | { problem: string } {
  const number = input.number?.trim() ?? '';
  const keyword = keywordForm(input.keyword ?? '');
  if (number === '' && keyword === '') return { problem: 'give --number, --keyword or both' };
  if (number !== '' && !NUMBER.test(number))
    return { problem: '--number is our short code or long number: 3 to 15 digits' };
  if (input.keyword !== undefined && !KEYWORD.test(keyword))
    return { problem: '--keyword is one word of 1 to 30 letters or digits' };
  return { number, keyword };
}

const shown = (r: StoredRoute): MoRoute => ({
  id: Number(r.id),
  email: shownEmail(r.email),
  number: r.number === '' ? null : r.number,
  keyword: r.keyword === '' ? null : r.keyword,
});

/**
 * Adds the account's route. Adding one it already has answers that route; a
 * (number, keyword) another account holds is refused (`taken`): one account
 * per pair, so a reply never has two equally specific routes.
 */
export async function addMoRoute(
  ctx: WithDb,
  accountId: number,
  key: { number: string; keyword: string },
): Promise<{ route: MoRoute } | { taken: MoRoute }> {
  const { inserted, route } = await insertRoute(ctx.db.kysely, accountId, key);
  if (!inserted && Number(route.account_id) !== accountId) return { taken: shown(route) };
  return { route: shown(route) };
}

export const listMoRoutes = async (ctx: WithDb): Promise<MoRoute[]> => (await selectRoutes(ctx.db.kysely)).map(shown);

export const removeMoRoute = (ctx: WithDb, id: number): Promise<boolean> => deleteRoute(ctx.db.kysely, id);

/** One page of the panel's list of an account's replies. */
export const REPLIES_PAGE = 50;

/** An account's replies, newest first, REPLIES_PAGE at a time (older than reply `before`); `more`: older ones exist. */
export async function accountReplies(
  ctx: WithDb,
  accountId: number,
  before?: number,
): Promise<{ replies: StoredReply[]; more: boolean }> {
  const rows = await selectReplies(ctx.db.kysely, accountId, { before, limit: REPLIES_PAGE + 1 });
  return { replies: rows.slice(0, REPLIES_PAGE), more: rows.length > REPLIES_PAGE };
}
