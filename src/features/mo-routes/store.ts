import type { Executor } from '../../db/engine.js';

export interface StoredRoute {
  id: number;
  account_id: number;
  email: string;
  number: string;
  keyword: string;
}

const routes = (db: Executor) =>
  db
    .selectFrom('mo_routes as r')
    .innerJoin('accounts as a', 'a.id', 'r.account_id')
    .select(['r.id', 'r.account_id', 'a.email', 'r.number', 'r.keyword']);

/** Adds a route; when its (number, keyword) is taken, the route that holds it instead (`inserted` false). */
export async function insertRoute(
  db: Executor,
  accountId: number,
  key: { number: string; keyword: string },
): Promise<{ inserted: boolean; route: StoredRoute }> {
  const row = await db
    .insertInto('mo_routes')
    .values({ account_id: accountId, ...key, created_at: Date.now() })
    .onConflict((oc) => oc.columns(['number', 'keyword']).doNothing())
    .returning('id')
    .executeTakeFirst();
  const route = await routes(db)
    .where('r.number', '=', key.number)
    .where('r.keyword', '=', key.keyword)
    .executeTakeFirstOrThrow();
  return { inserted: row !== undefined, route };
}

/** Every route, in the order they were added. */
export const selectRoutes = (db: Executor): Promise<StoredRoute[]> => routes(db).orderBy('r.id').execute();

export async function deleteRoute(db: Executor, id: number): Promise<boolean> {
  const r = await db.deleteFrom('mo_routes').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export interface StoredReply {
  id: number;
  number: string;
  destination?: string | null;
  text: string;
  received_at: number;
  /** The message it answers (null: an MO route gave it). */
  reference: string | null;
  message: string | null;
  /** The MO route that gave it (null: it answers a message); its number and keyword, null once removed. */
  route_id?: number | null;
  route_number: string | null;
  route_keyword: string | null;
}

/** An account's replies, newest first: `limit` of them older than reply `before` (all, without it). */
export async function selectReplies(
  db: Executor,
  accountId: number,
  page: { before?: number; limit: number },
): Promise<StoredReply[]> {
  return db
    .selectFrom('replies as p')
    .leftJoin('messages as m', (j) => j.onRef('m.id', '=', 'p.message_id').on('p.message_id', '<>', 0))
    .leftJoin('mo_routes as r', 'r.id', 'p.route_id')
    .select([
      'p.id',
      'p.number',
      'p.destination',
      'p.text',
      'p.received_at',
      'm.reference',
      'm.text as message',
      'p.route_id',
      'r.number as route_number',
      'r.keyword as route_keyword',
    ])
    .where('p.account_id', '=', accountId)
    .$if(page.before !== undefined, (q) => q.where('p.id', '<', page.before!))
    .orderBy('p.id', 'desc')
    .limit(page.limit)
    .execute();
}
