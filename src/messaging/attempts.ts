import type { Transaction } from 'kysely';
import type { BaseContext } from '../context.js';
import type { Database } from '../db/schema.js';
import type { FailedAttempt, SubmitOutcome } from './ports.js';
import { storableText } from '../text/storable.js';

/** A failed attempt's error is kept to this many characters; its answer code to CODE_MAX. */
export const ATTEMPT_ERROR_MAX = 200;
const CODE_MAX = 32;
const CHUNK = 500;

/** The attempts an outcome did not succeed with: those the driver listed, else the outcome itself when it failed. */
function failedOf(o: SubmitOutcome, driver: string, now: number): FailedAttempt[] {
  if (o.failed) return o.failed;
  // Left to the process bound to its connector: no attempt was made.
  if (o.ok || o.elsewhere) return [];
  return [{ carrier: o.carrier === undefined ? driver : o.carrier, at: now, code: o.code, error: o.error }];
}

/**
 * Records, in the transaction that records the hand-off's outcomes, a row
 * per attempt that did not take a message (a refusal, a throttle, a
 * failover, a transient error) with the carrier's answer. A message taken at
 * the first try writes nothing.
 */
export async function recordFailedAttempts(
  trx: Transaction<Database>,
  driver: string,
  batch: ReadonlyArray<{ id: number }>,
  outcomes: readonly SubmitOutcome[],
  now: number,
): Promise<void> {
  const rows = [];
  for (let k = 0; k < batch.length; k++)
    for (const f of failedOf(outcomes[k], driver, now))
      rows.push({
        message_id: batch[k].id,
        carrier: f.carrier,
        at: f.at,
        code: f.code === undefined ? null : storableText(f.code, CODE_MAX),
        error: storableText(f.error, ATTEMPT_ERROR_MAX),
      });
  for (let i = 0; i < rows.length; i += CHUNK)
    await trx
      .insertInto('message_attempts')
      .values(rows.slice(i, i + CHUNK))
      .execute();
}

/** Housekeeping: failed attempts older than MESSAGE_ATTEMPTS_KEEP_DAYS. */
export async function pruneFailedAttempts(ctx: Pick<BaseContext, 'db' | 'config'>, now = Date.now()): Promise<number> {
  const cutoff = now - ctx.config.MESSAGE_ATTEMPTS_KEEP_DAYS * 86_400_000;
  const result = await ctx.db.kysely.deleteFrom('message_attempts').where('at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
