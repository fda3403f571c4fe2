import type { AppContext } from '../context.js';
import { affected, type Executor } from '../db/engine.js';
import { countMessages, pipelineMetrics } from './metrics.js';
import type { Channel } from './types.js';

const CHUNK = 500;

/** A carrier id recorded for a message, with when: the carrier accepted it then. */
type Accepted = { message_id: number; carrier: string; carrier_id: string; created_at: number };

/**
 * Messages whose claim ran out at stage 0 although the carrier accepted them:
 * their dispatcher died after the carrier's acknowledgement was recorded (the
 * carrier ids: smpp_ids, provider_message_ids) and before the hand-off's
 * outcome was. They are recorded as sent (stage 1, the connector, sent_at
 * when the ids were recorded, parts: one SMPP id per segment), never handed
 * over again; their first carrier id was written on the message with the ids
 * (carrier-ids.ts). Their charge was taken at
 * acceptance and stays; a receipt that came meanwhile was applied when the
 * ids were recorded or when it arrived (it finds them), and one still
 * waiting is applied by the upkeep tick. The hand-off's cost is not known
 * here: it stays empty. Returns the ids recorded so (or moved on by someone
 * else meanwhile): none of them is to be handed over.
 */
export async function recordAcceptedUnrecorded(
  ctx: Pick<AppContext, 'db' | 'log' | 'metrics'>,
  candidates: Array<{ id: number; channel: Channel }>,
): Promise<Set<number>> {
  const done = new Set<number>();
  for (let i = 0; i < candidates.length; i += CHUNK) {
    const slice = candidates.slice(i, i + CHUNK);
    const byMessage = await acceptedIds(
      ctx.db.kysely,
      slice.map((c) => c.id),
    );
    if (byMessage.size === 0) continue;
    const recorded = await ctx.db.kysely.transaction().execute(async (trx) => {
      const ids: number[] = [];
      for (const [messageId, rows] of byMessage) {
        const first = rows[0];
        const sent = await trx
          .updateTable('messages')
          .set({
            stage: 1,
            status: 'sent',
            carrier: first.carrier,
            parts: rows.length,
            sent_at: Number(first.created_at),
          })
          .where('id', '=', messageId)
          .where('stage', '=', 0)
          .execute();
        if (affected(sent) > 0) ids.push(messageId);
      }
      return ids;
    });
    for (const id of byMessage.keys()) done.add(id);
    countMessages(
      pipelineMetrics(ctx.metrics.registry),
      slice.filter((c) => recorded.includes(c.id)),
      'sent',
    );
    if (recorded.length > 0)
      ctx.log.warn(
        { count: recorded.length },
        'recorded as sent, not handed over again: messages whose claim ran out after their carrier accepted them',
      );
  }
  return done;
}

/**
 * The carrier ids recorded for these messages, in the order recorded, per
 * message. A message's ids are never older than the message: that bound keeps
 * the look-up on the tables' created_at index.
 */
async function acceptedIds(db: Executor, messageIds: number[]): Promise<Map<number, Accepted[]>> {
  const oldest = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.min('created_at').as('at'))
    .where('id', 'in', messageIds)
    .executeTakeFirst();
  if (oldest?.at === null || oldest?.at === undefined) return new Map();
  const since = Number(oldest.at);
  const smpp = await db
    .selectFrom('smpp_ids')
    .select(['message_id', 'carrier', 'carrier_id', 'created_at'])
    .where('created_at', '>=', since)
    .where('message_id', 'in', messageIds)
    .orderBy('id')
    .execute();
  const provider = await db
    .selectFrom('provider_message_ids')
    .select(['message_id', 'carrier', 'carrier_id', 'created_at'])
    .where('created_at', '>=', since)
    .where('message_id', 'in', messageIds)
    // The markers of a counted read (carrier "#read") are no carrier's ids.
    .where('carrier', 'not like', '#%')
    .orderBy('created_at')
    .execute();
  const byMessage = new Map<number, Accepted[]>();
  for (const r of [...smpp, ...provider]) {
    const id = Number(r.message_id);
    const rows = byMessage.get(id) ?? [];
    // One connector's ids: a message accepted by an SMPP connector has no provider id, and the reverse.
    if (rows.length === 0 || rows[0].carrier === r.carrier) rows.push({ ...r, message_id: id });
    byMessage.set(id, rows);
  }
  return byMessage;
}
