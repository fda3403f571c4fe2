import type { Transaction } from 'kysely';
import type { WithDb } from '../context.js';
import type { Executor } from '../db/engine.js';
import type { Database } from '../db/schema.js';
import { formatCompact } from '../lib/time.js';
import { recordEvents } from '../webhooks/index.js';
import { queueReply } from './customer-notices.js';
import { keywordForm } from '../text/keyword.js';
import { addOptouts, listOwner, optoutKeyword, removeOptouts } from './optouts.js';

/** A customer's message that answers none of ours: who sent it, to which of our numbers, what it says. */
export interface LooseReply {
  source: string;
  /** Our short code or long number ('' when the carrier did not say). */
  destination: string;
  text: string;
  at: number;
}

export interface RouteMatch {
  routeId: number;
  accountId: number;
  /** The route's keyword (upper case, without accents), null for a route that takes any first word. */
  keyword: string | null;
}

/** Only the start of a text is looked at for its first word. */
const FIRST_WORD_SCAN = 200;

/**
 * The first word of a text as MO routes compare it: up to the first blank,
 * in the form opt-out keywords are compared (keywordForm: punctuation around
 * it dropped, upper case without accents, width variants folded: "¡Ínfo! por
 * favor" is INFO).
 */
export function firstWord(text: string): string {
  const word = text.slice(0, FIRST_WORD_SCAN).normalize('NFKC').trim().split(/\s+/u)[0] ?? '';
  return keywordForm(word);
}

/** Our number as routes hold it: the digits the carrier wrote, a leading + dropped. */
export const routeNumber = (destination: string): string => destination.trim().replace(/^\+/, '');

/**
 * The most specific route for a message sent to `number` whose first word is
 * `keyword`: number and keyword, else number alone, else keyword alone. A
 * (number, keyword) pair has one route in the deployment, so there is no tie;
 * an archived account's routes are skipped. `accountId` narrows the search to
 * one account's routes (the simulator's replies); `numbered` to routes that
 * name the number (an address an account owns or routes: keyword routes
 * take messages to other numbers only).
 */
export async function findRoute(
  db: Executor,
  to: { number: string; keyword: string; accountId?: number; numbered?: boolean },
): Promise<RouteMatch | undefined> {
  const rows = await db
    .selectFrom('mo_routes as r')
    .innerJoin('accounts as a', 'a.id', 'r.account_id')
    .select(['r.id', 'r.account_id', 'r.number', 'r.keyword'])
    .where('a.status', '=', 'active')
    .where((eb) =>
      to.numbered ? eb('r.number', '=', to.number) : eb.or([eb('r.number', '=', to.number), eb('r.number', '=', '')]),
    )
    .where((eb) => eb.or([eb('r.keyword', '=', to.keyword), eb('r.keyword', '=', '')]))
    .$if(to.accountId !== undefined, (q) => q.where('r.account_id', '=', to.accountId!))
    .execute();
  const rank = (r: { number: string; keyword: string }) => (r.number !== '' ? 2 : 0) + (r.keyword !== '' ? 1 : 0);
  const best = rows.filter((r) => rank(r) > 0).sort((x, y) => rank(y) - rank(x))[0];
  return best
    ? {
        routeId: Number(best.id),
        accountId: Number(best.account_id),
        keyword: best.keyword === '' ? null : best.keyword,
      }
    : undefined;
}

/** Whether an MO route of an active account names this number (our address is that account's, whatever the keyword). */
export async function isRoutedNumber(db: Executor, number: string): Promise<boolean> {
  if (number === '') return false;
  const row = await db
    .selectFrom('mo_routes as r')
    .innerJoin('accounts as a', 'a.id', 'r.account_id')
    .select('r.id')
    .where('a.status', '=', 'active')
    .where('r.number', '=', number)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A reply an MO route gave an account (`routeId` null: the owner of the
 * address it was sent to, with no route), in one transaction: listed among its
 * replies (message_id 0: it answers no message), its `response` event (the
 * same fields as a matched reply's, reference, message and send_date empty,
 * and where it went: `to` our number, the route's `keyword` and `route_id`,
 * each empty when there is none: events travel as form fields, which have no null),
 * a deliver_sm for its SMPP receivers (from our number), and its opt-out
 * keyword applied to the account's list (nothing is sent back: there is no
 * message whose channel and sender to answer with).
 */
export async function recordRoutedReply(
  ctx: WithDb,
  route: { accountId: number; routeId: number | null; keyword?: string | null },
  r: LooseReply,
): Promise<void> {
  const destination = routeNumber(r.destination);
  await ctx.db.kysely.transaction().execute(async (trx) => {
    await trx
      .insertInto('replies')
      .values({
        account_id: route.accountId,
        message_id: 0,
        number: r.source,
        text: r.text,
        received_at: r.at,
        destination: destination === '' ? null : destination,
        route_id: route.routeId,
      })
      .execute();
    await recordEvents(trx, [
      {
        accountId: route.accountId,
        type: 'response',
        reference: '',
        payload: {
          type: 'response',
          reference: '',
          number: r.source,
          message: '',
          response: r.text,
          send_date: '',
          response_date: formatCompact(r.at),
          to: destination,
          keyword: route.keyword ?? '',
          route_id: route.routeId === null ? '' : String(route.routeId),
        },
      },
    ]);
    const sender = destination === '' ? null : destination;
    await queueReply(trx, { accountId: route.accountId, number: r.source, sender, meta: null, text: r.text });
    await applyKeyword(trx, route.accountId, r);
  });
}

async function applyKeyword(trx: Transaction<Database>, accountId: number, r: LooseReply): Promise<void> {
  const keyword = optoutKeyword(r.text);
  if (!keyword) return;
  const owner = await listOwner(trx, accountId);
  if (keyword === 'start') await removeOptouts(trx, owner, [r.source]);
  else await addOptouts(trx, owner, [r.source], 'keyword', r.at);
}
