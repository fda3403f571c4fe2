import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/engine.js';
import { toCredits } from '../../accounts/credits.js';
import { shownEmail } from '../../accounts/subaccount-email.js';
import { CostTable, formatCost } from '../../carriers/costs.js';
import { idForms } from '../../carriers/smpp/receipts.js';
import { listCosts } from '../../carriers/store.js';
import { formatLocal } from '../../lib/time.js';
import { describeAcceptedBy, keyHintsOf } from './accepted-by.js';

/** At most this many messages per trace (newest first). */
export const TRACE_LIMIT = 50;

export type TraceQuery =
  { reference: string } | { number: string; from: number | null; to: number | null } | { carrierId: string };

const local = (ms: number | null) => (ms === null ? null : formatLocal(ms));

/** The ids of the messages a query names, across every account, newest first. */
async function messageIds(db: Executor, q: TraceQuery): Promise<number[]> {
  if ('reference' in q) {
    const rows = await db.selectFrom('messages').select('id').where('reference', '=', q.reference).execute();
    return rows.map((r) => r.id);
  }
  if ('number' in q) {
    const rows = await db
      .selectFrom('messages')
      .select('id')
      .where('number', '=', q.number)
      .$if(q.from !== null, (s) => s.where('created_at', '>=', q.from!))
      .$if(q.to !== null, (s) => s.where('created_at', '<', q.to!))
      .orderBy('id', 'desc')
      .limit(TRACE_LIMIT)
      .execute();
    return rows.map((r) => r.id);
  }
  // SMSCs disagree on the base of their ids: the id as given, and read in the other base.
  const forms = idForms(q.carrierId);
  const [smpp, provider, direct] = await Promise.all([
    db.selectFrom('smpp_ids').select('message_id').where('carrier_id', 'in', forms).limit(TRACE_LIMIT).execute(),
    db
      .selectFrom('provider_message_ids')
      .select('message_id')
      .where('carrier_id', '=', q.carrierId)
      .limit(TRACE_LIMIT)
      .execute(),
    db
      .selectFrom('messages')
      .select('id as message_id')
      .where('carrier_id', 'in', [q.carrierId, ...forms])
      .limit(TRACE_LIMIT)
      .execute(),
  ]);
  return [...new Set([...smpp, ...provider, ...direct].map((r) => Number(r.message_id)))].sort((a, b) => b - a);
}

/**
 * A message's whole history for support, from what the database keeps:
 * accepted (account, by which API key, SMPP user or the panel, source,
 * campaign), charged, routed (carrier, why, its cost now for the number),
 * each hand-off attempt that failed and the carrier's answer, handed over
 * (carrier id), the final receipt (with the carrier's raw stat and err), the
 * webhook events with every delivery attempt, and the refund of a message
 * closed without being sent. `keyEncryption` opens API keys to show their
 * start (never more).
 */
export async function traceMessages(db: Executor, keyEncryption: Buffer, q: TraceQuery) {
  const ids = (await messageIds(db, q)).slice(0, TRACE_LIMIT);
  if (ids.length === 0) return { messages: [] };
  const found = await traceRows(db, keyEncryption, ids);
  return { messages: found.rows.map((m) => traceOf(m, found)) };
}

/** What the database keeps of these messages: the rows, today's costs, key hints, failed hand-offs, webhooks. */
async function traceRows(db: Executor, keyEncryption: Buffer, ids: number[]) {
  const [rows, costs] = await Promise.all([
    db
      .selectFrom('messages')
      .innerJoin('accounts', 'accounts.id', 'messages.account_id')
      .innerJoin('campaigns', 'campaigns.id', 'messages.campaign_id')
      .selectAll('messages')
      .select(['accounts.email', 'campaigns.name as campaign', 'campaigns.source', 'campaigns.accepted_by'])
      .where('messages.id', 'in', ids)
      .orderBy('messages.id', 'desc')
      .execute(),
    listCosts(db),
  ]);
  const table = new CostTable(costs);
  const [keys, failed] = await Promise.all([
    keyHintsOf(
      db,
      keyEncryption,
      rows.map((r) => r.accepted_by ?? null),
    ),
    db.selectFrom('message_attempts').selectAll().where('message_id', 'in', ids).orderBy('id').execute(),
  ]);
  const events = await db
    .selectFrom('events')
    .selectAll()
    .where(
      'reference',
      'in',
      rows.map((r) => r.reference),
    )
    .orderBy('id')
    .execute();
  const attempts = events.length
    ? await db
        .selectFrom('event_attempts')
        .selectAll()
        .where(
          'event_id',
          'in',
          events.map((e) => e.id),
        )
        .orderBy('id')
        .execute()
    : [];
  return { rows, table, keys, failed, events, attempts };
}

type TraceRows = Awaited<ReturnType<typeof traceRows>>;

/** One message's history, in the order it happened. */
function traceOf(m: TraceRows['rows'][number], found: TraceRows) {
  const cost = m.carrier ? found.table.costFor(m.carrier, m.number) : null;
  const refunded = m.stage === 2 && m.sent_at === null && m.price_units > 0;
  return {
    reference: m.reference,
    account: shownEmail(m.email),
    channel: m.channel,
    number: m.number,
    status: m.status,
    status_code: m.dlr_code,
    accepted: {
      at: local(m.created_at),
      by: describeAcceptedBy(m.accepted_by ?? null, m.source, found.keys),
      source: m.source,
      campaign: m.campaign,
      scheduled_at: local(m.scheduled_at),
      // The order its carrier's line handed it over in (otp, transactional, bulk), and until when it could wait.
      traffic_class: m.traffic_class ?? 'bulk',
      valid_until: local(m.valid_until == null ? null : Number(m.valid_until)),
    },
    charged: { credits: toCredits(m.price_units), sandbox: m.sandbox === 1 },
    routed: m.carrier
      ? {
          carrier: m.carrier,
          reason: m.route_reason ?? null,
          // What the hand-off recorded (all its parts), and the connector's cost for this number today.
          cost: m.cost === null || m.cost === undefined ? null : formatCost(Number(m.cost)),
          cost_prefix: m.cost_prefix ?? null,
          parts: m.parts ?? null,
          cost_now: cost === null ? null : formatCost(cost),
        }
      : null,
    failed_attempts: found.failed
      .filter((f) => Number(f.message_id) === m.id)
      .map((f) => ({ at: local(Number(f.at)), carrier: f.carrier, code: f.code, error: f.error })),
    handed_over: m.sent_at === null ? null : { at: local(m.sent_at), carrier_id: m.carrier_id },
    receipt:
      m.dlr_at === null
        ? null
        : {
            status_code: m.dlr_code,
            stat: m.receipt_stat ?? null,
            err: m.receipt_err ?? null,
            at: local(m.dlr_at),
            after_ms: m.sent_at === null ? null : m.dlr_at - m.sent_at,
          },
    error: m.error,
    webhooks: webhooksOf(m.reference, found),
    refund: refunded ? { credits: toCredits(m.price_units), at: local(m.dlr_at) } : null,
  };
}

/** The webhook events of one message, each with its delivery attempts. */
function webhooksOf(reference: string, found: TraceRows) {
  return found.events
    .filter((e) => e.reference === reference)
    .map((e) => ({
      type: e.type,
      state: e.state,
      created_at: local(e.created_at),
      attempts: found.attempts
        .filter((a) => a.event_id === e.id)
        .map((a) => ({
          at: local(a.attempted_at),
          http_status: a.http_status,
          duration_ms: a.duration_ms,
          error: a.error,
        })),
    }));
}

/** traceMessages, given the context (the panel's message trace). */
export const traceFor = (ctx: Pick<AppContext, 'db' | 'secrets'>, q: TraceQuery) =>
  traceMessages(ctx.db.kysely, ctx.secrets.keyEncryption, q);
