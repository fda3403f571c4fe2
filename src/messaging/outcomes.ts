import { sql, type Transaction } from 'kysely';
import type { AppContext, WithDb } from '../context.js';
import type { Database } from '../db/schema.js';
import { isPostgres } from '../db/engine.js';
import { parkedFor, type SubmitOutcome } from './ports.js';
import { countReceipts } from './receipt-counts.js';
import { closeUnsent, REFUSED_STATUS } from './close-unsent.js';
import { recordFailedAttempts } from './attempts.js';
import { writeCarrierIds } from './carrier-ids.js';

// What a hand-off records once its carrier answered (dispatch.ts submits): sent, refused or released for a retry
// (closing a message never sent, with its refund and events, is close-unsent.ts).

/** How long a failing write of hand-off outcomes is retried before the claims are left to expire. */
export const RECORD_RETRY_FOR_MS = 600_000;

/**
 * How a hand-off releases what it did not hand over: only messages its claim `token` still holds (another process
 * may have taken them over), kept claimed for `holdMs` when they have no dispatch job.
 */
export interface Release {
  token: string;
  holdMs?: number;
  /** How long a message left to another process's bind (`elsewhere`) stays parked before any dispatcher may take it. */
  parkMs?: number;
}

/** Records the outcomes, retrying a failed write with backoff (the caller keeps the claims alive meanwhile). */
export async function recordDurably(
  ctx: Pick<AppContext, 'db' | 'log'>,
  carrier: string,
  batch: Row[],
  outcomes: SubmitOutcome[],
  release: Release,
): Promise<void> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      await recordOutcomes(ctx, carrier, batch, outcomes, release);
      return;
    } catch (err) {
      if (Date.now() - started >= RECORD_RETRY_FOR_MS) throw err;
      ctx.log.error(
        { err, messages: batch.length, attempt },
        'recording a hand-off failed; retrying while the messages stay claimed',
      );
      await new Promise((r) => setTimeout(r, Math.min(50 * 2 ** attempt, 5000)));
    }
  }
}

/** What the hand-off records on a message: the connector that took it and its cost then (margins, least-cost routes). */
type HandedTo = {
  carrier: string;
  cost: number | null;
  cost_prefix: string | null;
  parts: number;
  route_reason: string | null;
};

type Row = {
  id: number;
  account_id: number;
  reference: string;
  number: string;
  price_units: number;
  extra_params: string | null;
};

async function recordOutcomes(
  ctx: WithDb,
  carrier: string,
  batch: Row[],
  outcomes: SubmitOutcome[],
  release: Release,
): Promise<void> {
  const now = Date.now();
  await ctx.db.kysely.transaction().execute(async (trx) => {
    await lockInIdOrder(trx, batch);
    await recordTaken(trx, carrier, batch, outcomes, now);
    await recordRefused(trx, carrier, batch, outcomes, now);
    await recordFailedAttempts(trx, carrier, batch, outcomes, now);
    await releaseForRetry(trx, batch, outcomes, release, now);
  });
}

/** The connector that took or refused a message (a router names it, and why), else the driver, with its cost then. */
function handedToOf(o: SubmitOutcome & { ok: true }, carrier: string): HandedTo {
  const parts = o.parts ?? 1;
  return {
    carrier: o.carrier ?? carrier,
    cost: o.cost ? o.cost.amount * parts : null,
    cost_prefix: o.cost?.prefix ?? null,
    parts,
    route_reason: o.route ?? null,
  };
}

/**
 * Messages a carrier took: sent, with the connector and its cost. Their carrier ids are the connector's record
 * (its sink wrote them as the carrier acknowledged: carrier-ids.ts); a driver with no sink hands its ids here.
 */
async function recordTaken(
  trx: Transaction<Database>,
  carrier: string,
  batch: Row[],
  outcomes: SubmitOutcome[],
  now: number,
): Promise<void> {
  // A message may have had its receipt first: matched by the id the carrier named it with, or by the message's own id
  // (the simulator's reports). `named` groups apart.
  const groups = new Map<string, { handedTo: HandedTo; named: boolean; ids: number[] }>();
  const unrecorded: Array<{ messageId: number; carrierId: string }> = [];
  batch.forEach((r, k) => {
    const o = outcomes[k];
    if (!o.ok) return;
    const handedTo = handedToOf(o, carrier);
    const named = Boolean(o.carrierId);
    const key = JSON.stringify([handedTo, named]);
    if (!groups.has(key)) groups.set(key, { handedTo, named, ids: [] });
    groups.get(key)!.ids.push(r.id);
    if (o.carrierId && !o.idsRecorded) unrecorded.push({ messageId: r.id, carrierId: o.carrierId });
  });
  await writeCarrierIds(trx, unrecorded);
  // Receipts that came first are counted once, after every message is written: counting per group took the count rows
  // out of key order (and between message writes), and two hand-offs recorded at once on PostgreSQL deadlocked.
  const early: Array<{ carrier: string | null; code: number; at: number }> = [];
  for (const { handedTo, named, ids } of groups.values()) {
    const sent = await trx
      .updateTable('messages')
      .set({ stage: 1, status: 'sent', ...handedTo, sent_at: now })
      .where('id', 'in', ids)
      .where('stage', '=', 0)
      .returning('id')
      .execute();
    if (sent.length === ids.length) continue;
    const done = new Set(sent.map((m) => Number(m.id)));
    early.push(
      ...(await recordOvertaken(
        trx,
        handedTo,
        ids.filter((id) => !done.has(id)),
        named,
        now,
      )),
    );
  }
  await countReceipts(trx, early);
}

/**
 * Its receipt came first (a fast SMSC, a provider's webhook, the simulator's report job) and already closed it: the
 * hand-off is still recorded on it, and the receipt, applied before the message had a carrier (so not counted then),
 * is returned, to be counted for this one now. Only a message with no carrier yet: one another process recorded keeps
 * that record, and its receipt was counted. A message the carrier did not name is recorded only if a receipt closed it (not an
 * expiry or a suspension that closed it unsent meanwhile).
 */
async function recordOvertaken(
  trx: Transaction<Database>,
  handedTo: HandedTo,
  ids: number[],
  named: boolean,
  now: number,
) {
  const early = await trx
    .updateTable('messages')
    .set({ ...handedTo, sent_at: now })
    .where('id', 'in', ids)
    .where('carrier', 'is', null)
    .$if(!named, (q) => q.where('dlr_code', 'is not', null))
    .returning(['carrier', 'dlr_code', 'dlr_at'])
    .execute();
  return early.flatMap((e) =>
    e.dlr_code === null || e.dlr_at === null ? [] : [{ carrier: e.carrier, code: e.dlr_code, at: e.dlr_at }],
  );
}

/** Refusals: closed unsent, refunded. A refusal may name its status (12: no route); otherwise 4, rejected. */
async function recordRefused(
  trx: Transaction<Database>,
  carrier: string,
  batch: Row[],
  outcomes: SubmitOutcome[],
  now: number,
): Promise<void> {
  const refused = new Map<string, { code: number; by: string | null; ids: number[] }>();
  batch.forEach((r, k) => {
    const o = outcomes[k];
    if (o.ok || !o.permanent) return;
    const code = o.status ?? REFUSED_STATUS;
    const by = o.carrier === undefined ? carrier : o.carrier;
    const key = `${code}:${by}`;
    if (!refused.has(key)) refused.set(key, { code, by, ids: [] });
    refused.get(key)!.ids.push(r.id);
  });
  for (const g of refused.values())
    await closeUnsent(
      trx,
      g.ids,
      g.code,
      g.code === REFUSED_STATUS ? 'refused by the carrier' : 'no route to this destination',
      g.by,
      now,
    );
}

/**
 * A transient failure releases the claim: the dispatch job retries at once on its next run. With holdMs (messages
 * that have no dispatch job) the release keeps a claim for the back-off, which the unsent sweep finds. A message
 * whose connector is bound only in another process (`elsewhere`) is parked for it (`parkedFor`) for parkMs: a
 * process holding a bind takes it over at once (parked.ts), any dispatcher after that.
 */
async function releaseForRetry(
  trx: Transaction<Database>,
  batch: Row[],
  outcomes: SubmitOutcome[],
  { token, holdMs, parkMs }: Release,
  now: number,
): Promise<void> {
  const groups = new Map<string | null, number[]>();
  batch.forEach((r, k) => {
    const o = outcomes[k];
    if (o.ok || o.permanent) return;
    const key = o.elsewhere ? parkedFor(o.elsewhere) : null;
    groups.set(key, [...(groups.get(key) ?? []), r.id]);
  });
  for (const [parked, ids] of groups) {
    const ms = parked ? (parkMs ?? holdMs ?? 0) : holdMs;
    await trx
      .updateTable('messages')
      .set({
        // Never held past the validity end: the dispatch job due then closes the message as expired.
        claimed_until:
          ms === undefined
            ? null
            : sql<number>`case when valid_until is not null and valid_until < ${now + ms} then valid_until else ${now + ms} end`,
        claim_token: parked,
      })
      .where('id', 'in', ids)
      .where('stage', '=', 0)
      .where('claim_token', '=', token)
      .execute();
  }
}

/**
 * PostgreSQL: the batch's messages locked first, in id order, as the claims, their renewals and the receipts take
 * them. The writes below go by outcome (taken, refused, released), not by id, and another process's claim or
 * record of the same messages (after a takeover) would otherwise wait on them in another order: a deadlock.
 */
async function lockInIdOrder(trx: Transaction<Database>, batch: Row[]): Promise<void> {
  if (batch.length < 2 || !isPostgres(trx)) return;
  await trx
    .selectFrom('messages')
    .select('id')
    .where(
      'id',
      'in',
      batch.map((r) => r.id),
    )
    .orderBy('id')
    .forUpdate()
    .execute();
}
