import type { Config } from '../config.js';
import type { Executor } from '../db/engine.js';
import { bumpRevision, RevisionedCache } from '../db/revisioned.js';
import type { ChannelNumbers } from '../phone/accepted.js';
import { ContentMatcher, type ContentRule } from '../text/content-match.js';
import type { FilterAction, SendRulesTable } from './send-rules-tables.js';

/**
 * The abuse rules a family's sends obey, held by each process and reloaded within CARRIER_POLL_MS of a change (the
 * `send_rules` revision, bumped by `accounts set` and `filters add|remove`): its destination countries, its
 * destination caps, whether only registered senders may be used, and the content filters that apply to it. Each
 * setting is the account's own, else its parent's, else the deployment's; the deployment's filters and the family's
 * (the account's and its parent's) all apply.
 */

/** The family's caps on messages to one number per hour (0: no cap), and the family they count for. */
export interface DestinationCaps {
  familyId: number;
  perNumber: number;
  sameText: number;
}

export interface FamilyRules {
  familyId: number;
  /** The destination country codes the family may send to (every channel); null: the deployment's lists. */
  countries: ReadonlySet<string> | null;
  sendersRegistered: boolean;
  /** null: no cap applies. */
  caps: DestinationCaps | null;
  /** The filter sets that apply (deployment, parent, account); empty sets left out. */
  filters: Array<ContentMatcher<FilterAction>>;
}

type RulesRow = Pick<SendRulesTable, 'countries' | 'max_per_number_hour' | 'max_same_text_hour' | 'senders_registered'>;

interface Loaded {
  rules: Map<number, RulesRow>;
  /** Each family's weight in a carrier's round-robin (traffic_settings), where set. */
  weights: Map<number, number>;
  deployment: ContentMatcher<FilterAction>;
  byAccount: Map<number, ContentMatcher<FilterAction>>;
}

async function loadRules(db: Executor): Promise<Loaded> {
  const rows = await db
    .selectFrom('send_rules')
    .select(['account_id', 'countries', 'max_per_number_hour', 'max_same_text_hour', 'senders_registered'])
    .execute();
  const filters = await db
    .selectFrom('content_filters')
    .select(['id', 'account_id', 'action', 'word', 'domain'])
    .orderBy('id')
    .execute();
  const weights = await db.selectFrom('traffic_settings').select(['account_id', 'weight']).execute();
  const grouped = new Map<number, Array<ContentRule<FilterAction>>>();
  const deployment: Array<ContentRule<FilterAction>> = [];
  for (const f of filters) {
    const rule = { id: Number(f.id), action: f.action, word: f.word, domain: f.domain };
    if (f.account_id === null) deployment.push(rule);
    else grouped.set(Number(f.account_id), [...(grouped.get(Number(f.account_id)) ?? []), rule]);
  }
  return {
    rules: new Map(rows.map((r) => [Number(r.account_id), r])),
    weights: new Map(weights.map((w) => [Number(w.account_id), Number(w.weight)])),
    deployment: new ContentMatcher(deployment),
    byAccount: new Map([...grouped].map(([id, rules]) => [id, new ContentMatcher(rules)])),
  };
}

/** Marks the rules changed, in the transaction of the change: every process reloads them within CARRIER_POLL_MS. */
export const sendRulesChanged = (db: Executor) => bumpRevision(db, 'send_rules');

/** One per process, built by src/app/boot.ts (ctx.sendRules). */
export class SendRulesBook {
  private readonly cache: RevisionedCache<Loaded>;
  /** Each account's parent (null: a top-level account): an account never changes family. */
  private readonly parents = new Map<number, number | null>();

  constructor(
    pollMs: number,
    private readonly defaults: Pick<Config, 'DESTINATION_MAX_PER_NUMBER_HOUR' | 'DESTINATION_MAX_SAME_TEXT_HOUR'>,
  ) {
    this.cache = new RevisionedCache('send_rules', pollMs, loadRules);
  }

  async rulesFor(db: Executor, accountId: number): Promise<FamilyRules> {
    const parentId = await this.parentOf(db, accountId);
    const loaded = await this.cache.current(db);
    const own = loaded.rules.get(accountId);
    const parent = parentId === null ? undefined : loaded.rules.get(parentId);
    const setting = <K extends keyof RulesRow>(key: K): RulesRow[K] | null => own?.[key] ?? parent?.[key] ?? null;
    const countries = setting('countries');
    const familyId = parentId ?? accountId;
    const perNumber = setting('max_per_number_hour') ?? this.defaults.DESTINATION_MAX_PER_NUMBER_HOUR;
    const sameText = setting('max_same_text_hour') ?? this.defaults.DESTINATION_MAX_SAME_TEXT_HOUR;
    const filters = [loaded.deployment, parentId === null ? undefined : loaded.byAccount.get(parentId)]
      .concat(loaded.byAccount.get(accountId))
      .filter((m): m is ContentMatcher<FilterAction> => m !== undefined && !m.empty);
    return {
      familyId,
      countries: countries === null ? null : new Set(countries.split(',')),
      sendersRegistered: Number(setting('senders_registered') ?? 0) === 1,
      caps: perNumber === 0 && sameText === 0 ? null : { familyId, perNumber, sameText },
      filters,
    };
  }

  /**
   * The family and weight in a carrier's round-robin of each of these accounts (a sub-account is its parent's), read
   * by every dispatch: from the book, so a dispatch costs no query for them; a weight change applies within
   * CARRIER_POLL_MS (setTrafficSettings bumps the revision).
   */
  async families(db: Executor, accountIds: number[]): Promise<Map<number, { family: number; weight: number }>> {
    const out = new Map<number, { family: number; weight: number }>();
    if (accountIds.length === 0) return out;
    const loaded = await this.cache.current(db);
    for (const id of accountIds) {
      const family = (await this.parentOf(db, id)) ?? id;
      out.set(id, { family, weight: loaded.weights.get(family) ?? 1 });
    }
    return out;
  }

  private async parentOf(db: Executor, accountId: number): Promise<number | null> {
    if (this.parents.has(accountId)) return this.parents.get(accountId)!;
    const row = await db.selectFrom('accounts').select('parent_id').where('id', '=', accountId).executeTakeFirst();
    const parent = row?.parent_id == null ? null : Number(row.parent_id);
    if (row) this.parents.set(accountId, parent);
    return parent;
  }
}

/** A channel's number rule narrowed to the family's countries: another country code is refused as not served. */
export function narrowedNumbers(numbers: ChannelNumbers, countries: ReadonlySet<string> | null): ChannelNumbers {
  if (countries === null) return numbers;
  const countryCodes = new Set([...numbers.countryCodes].filter((c) => countries.has(c)));
  return {
    channel: numbers.channel,
    countryCodes,
    refusal: (countryCode, national) =>
      countryCodes.has(countryCode) ? numbers.refusal(countryCode, national) : 'country',
  };
}

/** `accounts set`'s abuse settings; undefined leaves one as it is, null returns it to the parent's or the default. */
export interface SendRulesChanges {
  countries?: string | null;
  max_per_number_hour?: number | null;
  max_same_text_hour?: number | null;
  senders_registered?: number | null;
}

/** Saves an account's own settings, in the caller's transaction, and tells every process. */
export async function saveSendRules(db: Executor, accountId: number, changes: SendRulesChanges): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  const now = Date.now();
  await db
    .insertInto('send_rules')
    .values({
      account_id: accountId,
      countries: null,
      max_per_number_hour: null,
      max_same_text_hour: null,
      senders_registered: null,
      ...changes,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ ...changes, updated_at: now }))
    .execute();
  await sendRulesChanged(db);
}

/** The settings in force for an account, as `accounts show` prints them: its own, else its parent's; null: the default. */
export async function sendRulesView(
  db: Executor,
  account: { id: number; parent_id: number | null },
): Promise<{
  countries: string[] | 'any';
  senders: 'registered' | 'any';
  max_per_number_hour: number | 'default';
  max_same_text_hour: number | 'default';
}> {
  const ids = [account.id, ...(account.parent_id === null ? [] : [account.parent_id])];
  const rows = await db.selectFrom('send_rules').selectAll().where('account_id', 'in', ids).execute();
  const own = rows.find((r) => Number(r.account_id) === Number(account.id));
  const parent = rows.find((r) => Number(r.account_id) !== Number(account.id));
  const countries = own?.countries ?? parent?.countries ?? null;
  const perNumber = own?.max_per_number_hour ?? parent?.max_per_number_hour ?? null;
  const sameText = own?.max_same_text_hour ?? parent?.max_same_text_hour ?? null;
  return {
    countries: countries === null ? 'any' : countries.split(','),
    senders: Number(own?.senders_registered ?? parent?.senders_registered ?? 0) === 1 ? 'registered' : 'any',
    max_per_number_hour: perNumber === null ? 'default' : Number(perNumber),
    max_same_text_hour: sameText === null ? 'default' : Number(sameText),
  };
}
