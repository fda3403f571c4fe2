import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Transaction } from 'kysely';
import type { DbAndConfig } from '../context.js';
import type { Database } from '../db/schema.js';
import type { PrunedMessages } from '../feature.js';
import { formatLocalDate, parseLocal } from '../lib/time.js';

/** Messages removed per transaction: each batch holds its locks for a few milliseconds. */
export const RETENTION_BATCH = 1000;
/** The pause between two batches, so sends and receipts write between them. */
export const RETENTION_PAUSE_MS = 50;
const DAY_MS = 86_400_000;

/** Another module's rows of a batch (its Feature's `forgetMessages`), deleted in the batch's transaction. */
export type ForgetMessages = (trx: Transaction<Database>, batch: PrunedMessages) => Promise<number>;

/** The creation time before which final messages are pruned, or null when MESSAGES_KEEP_DAYS is 0 (keep all). */
export function retentionCutoff(config: { MESSAGES_KEEP_DAYS: number }, now: number): number | null {
  return config.MESSAGES_KEEP_DAYS > 0 ? now - config.MESSAGES_KEEP_DAYS * DAY_MS : null;
}

/**
 * The first Mexico City day whose messages retention has all kept (YYYY-MM-DD): the day after the one the cutoff
 * falls in (that day's earlier messages may be pruned), or that day when the cutoff is its midnight. Null when
 * MESSAGES_KEEP_DAYS is 0: every day is held. Reports and margins say it as `covers_from`.
 */
export function retentionCoversFrom(config: { MESSAGES_KEEP_DAYS: number }, now: number): string | null {
  const cutoff = retentionCutoff(config, now);
  if (cutoff === null) return null;
  const day = formatLocalDate(cutoff);
  if (parseLocal(day) === cutoff) return day;
  // The next midnight from the day's last second: days are 23 or 25 hours long at DST changes.
  return formatLocalDate(parseLocal(`${day} 23:59:59`)! + 1000);
}

/**
 * The oldest final messages created before `cutoff`, in creation order (the partial index messages_final_created,
 * migration 0053): never one still queued, scheduled or waiting for a receipt (stage 0 or 1), nor one whose webhook
 * event is still being delivered. `after` continues from the last one read (the export's keyset).
 */
export function oldFinalMessages(db: Transaction<Database> | DbAndConfig['db']['kysely'], cutoff: number) {
  return (
    db
      .selectFrom('messages as m')
      // A literal, not a parameter: the planners use the partial index only for the very predicate it was built with.
      .where(sql<boolean>`m.stage = 2`)
      .where('m.created_at', '<', cutoff)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('events as e')
              .select('e.id')
              .whereRef('e.reference', '=', 'm.reference')
              .where('e.state', '=', 'pending'),
          ),
        ),
      )
      .orderBy('m.created_at')
      .orderBy('m.id')
  );
}

/**
 * Messaging's own rows of the batch: replies, read confirmations and failed attempts, then the messages and their
 * emptied campaigns. Carrier ids (smpp_ids, provider_message_ids) go by their own prune, 7 and 30 days after the
 * hand-off (src/messaging/receipts.ts): a receipt that still finds one finds no message to change.
 */
async function deleteBatch(trx: Transaction<Database>, batch: PrunedMessages): Promise<number> {
  const replies = await trx.deleteFrom('replies').where('message_id', 'in', batch.ids).executeTakeFirst();
  const reads = await trx.deleteFrom('read_trackings').where('message_id', 'in', batch.ids).executeTakeFirst();
  const attempts = await trx.deleteFrom('message_attempts').where('message_id', 'in', batch.ids).executeTakeFirst();
  const rows = [replies, reads, attempts].reduce((sum, r) => sum + Number(r.numDeletedRows), 0);
  const m = await trx.deleteFrom('messages').where('id', 'in', batch.ids).executeTakeFirst();
  if (batch.campaignIds.length > 0) await trx.deleteFrom('campaigns').where('id', 'in', batch.campaignIds).execute();
  return rows + Number(m.numDeletedRows) + batch.campaignIds.length;
}

/** The batch's campaigns created before the cutoff that have no message left outside the batch. */
async function emptiedCampaigns(trx: Transaction<Database>, ids: number[], campaigns: number[], cutoff: number) {
  if (campaigns.length === 0) return [];
  const rows = await trx
    .selectFrom('campaigns as c')
    .select('c.id')
    .where('c.id', 'in', campaigns)
    .where('c.created_at', '<', cutoff)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('messages as m')
            .select('m.id')
            .whereRef('m.campaign_id', '=', 'c.id')
            .where('m.id', 'not in', ids),
        ),
      ),
    )
    .execute();
  return rows.map((r) => Number(r.id));
}

export interface PruneOptions {
  batch?: number;
  pauseMs?: number;
}

/**
 * Retention: removes the final messages created more than MESSAGES_KEEP_DAYS ago, with every row of theirs (each
 * module's through `forget`), `batch` messages per transaction with a pause between, until none is left. Answers
 * the messages removed and the other rows removed with them. Nothing when MESSAGES_KEEP_DAYS is 0.
 */
export async function pruneOldMessages(
  ctx: DbAndConfig,
  now: number,
  forget: readonly ForgetMessages[],
  opts: PruneOptions = {},
): Promise<{ messages: number; message_rows: number }> {
  const cutoff = retentionCutoff(ctx.config, now);
  const size = opts.batch ?? RETENTION_BATCH;
  let messages = 0;
  let rows = 0;
  if (cutoff === null) return { messages, message_rows: rows };
  for (;;) {
    const step = await ctx.db.kysely.transaction().execute(async (trx) => {
      const found = await oldFinalMessages(trx, cutoff)
        .select(['m.id', 'm.reference', 'm.campaign_id'])
        .limit(size)
        .execute();
      if (found.length === 0) return { found: 0, rows: 0 };
      const ids = found.map((m) => Number(m.id));
      const campaigns = [...new Set(found.map((m) => Number(m.campaign_id)))];
      const batch = {
        ids,
        references: found.map((m) => m.reference),
        campaignIds: await emptiedCampaigns(trx, ids, campaigns, cutoff),
      };
      let others = 0;
      for (const f of forget) others += await f(trx, batch);
      return { found: ids.length, rows: others + (await deleteBatch(trx, batch)) - ids.length };
    });
    messages += step.found;
    rows += step.rows;
    if (step.found < size) return { messages, message_rows: rows };
    await sleep(opts.pauseMs ?? RETENTION_PAUSE_MS);
  }
}
