import { Counter, type Registry } from 'prom-client';
import type { AppContext } from '../context.js';
import { recordAudit } from '../audit/service.js';
import { readText, type ContentRule } from '../text/content-match.js';
import { Refusal } from './refusal.js';
import type { FamilyRules } from './send-rules.js';
import type { FilterAction } from './send-rules-tables.js';

/**
 * The abuse rules of the acceptance step (accept.ts), for every front end of SMS and RCS: the family's rules
 * (send-rules.ts) and its content filters. A match of a filter is recorded (an audit entry of the actor `filters`, the
 * metrics) whether it blocks or flags the send.
 */

export type RulesContext = Pick<AppContext, 'db' | 'sendRules' | 'metrics'>;

/** The family's rules for a send of this account. */
export const familyRules = (ctx: Pick<AppContext, 'db' | 'sendRules'>, accountId: number): Promise<FamilyRules> =>
  ctx.sendRules.rulesFor(ctx.db.kysely, accountId);

const MATCHES = 'mensajero_content_filter_matches_total';
const REFUSALS = 'mensajero_abuse_refusals_total';

/** The abuse controls' counters on this process's registry (sum over the processes in Prometheus). */
export function abuseMetrics(registry: Registry): { matches: Counter<'action'>; refusals: Counter<'control'> } {
  const matches = registry.getSingleMetric(MATCHES) as Counter<'action'> | undefined;
  if (matches) return { matches, refusals: registry.getSingleMetric(REFUSALS) as Counter<'control'> };
  return {
    matches: new Counter({
      name: MATCHES,
      help: 'Sends a content filter matched in this process, by the action taken (block, flag)',
      labelNames: ['action'],
      registers: [registry],
    }),
    refusals: new Counter({
      name: REFUSALS,
      help: 'Sends refused by an abuse control in this process (destination_cap, content_blocked, sender_not_registered)',
      labelNames: ['control'],
      registers: [registry],
    }),
  };
}

const COUNTED: ReadonlySet<string> = new Set(['destination_cap', 'content_blocked', 'sender_not_registered']);

/** Counts a refusal of an abuse control in the metrics; any other error is left alone. Returns the error. */
export function countAbuseRefusal<E>(ctx: Pick<AppContext, 'metrics'>, error: E): E {
  if (error instanceof Refusal && COUNTED.has(error.code))
    abuseMetrics(ctx.metrics.registry).refusals.inc({ control: error.code });
  return error;
}

/** The text shown in a match's audit entry: enough to judge it. */
const EXCERPT = 160;

/**
 * Checks a send's text against the family's filters: a `flag` match lets it through, a `block` match refuses it
 * (content_blocked). Every match is recorded on its own, before the send is written: a flagged send that
 * is then refused for another reason (credits) keeps its entry.
 */
export async function acceptContent(
  ctx: RulesContext,
  accountId: number,
  rules: FamilyRules,
  send: { channel: string; text: string; recipients: number },
): Promise<void> {
  if (rules.filters.length === 0) return;
  const read = readText(send.text);
  const matched = rules.filters.flatMap((m) => m.matches(read));
  if (matched.length === 0) return;
  const blocked = matched.some((m) => m.action === 'block');
  await recordMatches(ctx, accountId, matched, send, blocked ? 'block' : 'flag');
  const { matches } = abuseMetrics(ctx.metrics.registry);
  matches.inc({ action: blocked ? 'block' : 'flag' });
  if (blocked) throw new Refusal('content_blocked');
}

async function recordMatches(
  ctx: Pick<AppContext, 'db'>,
  accountId: number,
  matched: Array<ContentRule<FilterAction>>,
  send: { channel: string; text: string; recipients: number },
  action: FilterAction,
): Promise<void> {
  await recordAudit(ctx.db.kysely, {
    actor: 'filters',
    action: `filters.${action}`,
    target: `account:${accountId}`,
    detail: {
      account_id: accountId,
      filter_ids: matched.map((m) => m.id),
      matched: matched.map((m) => `${m.action} ${m.word !== null ? `word ${m.word}` : `domain ${m.domain}`}`),
      channel: send.channel,
      recipients: send.recipients,
      text: send.text.slice(0, EXCERPT),
    },
  });
}
