import type { Db } from '../../db/engine.js';
import { recordAudit, type AuditInput } from '../../audit/service.js';
import { shownEmail } from '../../accounts/subaccount-email.js';
import { sendRulesChanged } from '../../messaging/send-rules.js';
import type { FilterAction } from '../../messaging/send-rules-tables.js';
import { filterDomain, filterWord, MAX_DOMAIN, MAX_FILTER_WORD, MAX_PHRASE_WORDS } from '../../text/content-match.js';
import { countFilters, deleteFilter, insertFilter, sameFilter, selectFilters, type FilterRow } from './store.js';

/**
 * The operator's content filters (`filters add|list|remove`, /operator/v1/filters): words, phrases and URL domains a
 * send's text is checked against in the acceptance step (src/messaging/accept-rules.ts), for every account or for one
 * account's family. Each change reaches every process within CARRIER_POLL_MS.
 */

/** The most filters a deployment holds: each send checks its text against them in memory. */
export const MAX_FILTERS = 10_000;

/** A refused input; `code` names the rule for the operator API (op_filter_invalid, op_filter_exists, op_filters_full). */
export class FilterError extends Error {
  constructor(
    readonly code: 'op_filter_invalid' | 'op_filter_exists' | 'op_filters_full',
    message: string,
  ) {
    super(message);
    this.name = 'FilterError';
  }
}

/** A filter as the CLI and the API show it. */
export interface FilterView {
  id: number;
  action: FilterAction;
  scope: 'deployment' | 'account';
  email: string | null;
  word: string | null;
  domain: string | null;
}

const view = (f: FilterRow): FilterView => ({
  id: f.id,
  action: f.action,
  scope: f.account_id === null ? 'deployment' : 'account',
  email: f.email === null ? null : shownEmail(f.email),
  word: f.word,
  domain: f.domain,
});

/** What `filters add` asks for: the account (null: every account) and one of word or domain. */
export interface NewFilter {
  action: unknown;
  account: { id: number; email: string } | null;
  word?: unknown;
  domain?: unknown;
}

/** Who made a change, for the audit entry written in its transaction (the operator API's token and address). */
export type FilterActor = Pick<AuditInput, 'actor' | 'address'>;

/** The filter's action and text in the forms it is stored in; throws FilterError op_filter_invalid. */
function checked(input: NewFilter): { action: FilterAction; word: string | null; domain: string | null } {
  if (input.action !== 'block' && input.action !== 'flag')
    throw new FilterError('op_filter_invalid', 'the action is block or flag');
  if ((input.word === undefined) === (input.domain === undefined))
    throw new FilterError('op_filter_invalid', 'a filter is one word or phrase, or one domain');
  if (input.word !== undefined) {
    const word = typeof input.word === 'string' ? filterWord(input.word) : null;
    if (word === null)
      throw new FilterError(
        'op_filter_invalid',
        `a word or phrase has 1 to ${MAX_PHRASE_WORDS} words of letters or digits, at most ${MAX_FILTER_WORD} characters`,
      );
    return { action: input.action, word, domain: null };
  }
  const domain = typeof input.domain === 'string' ? filterDomain(input.domain) : null;
  if (domain === null)
    throw new FilterError(
      'op_filter_invalid',
      `a domain is a host name of at least two labels (bbva-mx.example), at most ${MAX_DOMAIN} characters, without https:// or a path`,
    );
  return { action: input.action, word: null, domain };
}

/** Adds a filter; with `by`, the audit entry `filters.add` is written in the same transaction. */
export async function addFilter(db: Db, input: NewFilter, by?: FilterActor): Promise<FilterView> {
  const rule = { account_id: input.account?.id ?? null, ...checked(input) };
  const id = await db.kysely.transaction().execute(async (trx) => {
    const existing = await sameFilter(trx, rule);
    if (existing !== undefined) throw new FilterError('op_filter_exists', `the same filter exists: id ${existing}`);
    if ((await countFilters(trx)) >= MAX_FILTERS)
      throw new FilterError('op_filters_full', `a deployment holds at most ${MAX_FILTERS} filters: remove some first`);
    const added = await insertFilter(trx, rule, Date.now());
    await sendRulesChanged(trx);
    if (by) await recordAudit(trx, { ...by, action: 'filters.add', target: `filter:${added}`, detail: { ...rule } });
    return added;
  });
  return view({ id, ...rule, email: input.account?.email ?? null });
}

export async function listFilters(db: Db): Promise<{ filters: FilterView[] }> {
  return { filters: (await selectFilters(db.kysely)).map(view) };
}

/** Removes a filter; with `by`, the audit entry `filters.remove` when there was one. */
export async function removeFilter(db: Db, id: number, by?: FilterActor): Promise<{ removed: boolean }> {
  const removed = await db.kysely.transaction().execute(async (trx) => {
    const gone = await deleteFilter(trx, id);
    if (!gone) return false;
    await sendRulesChanged(trx);
    if (by)
      await recordAudit(trx, { ...by, action: 'filters.remove', target: `filter:${id}`, detail: { ...view(gone) } });
    return true;
  });
  return { removed };
}
