import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { Database } from '../db/schema.js';
import { DISPATCH_JOB } from './dispatch.js';
import type { DispatchOutcome } from './ports.js';
import { batchKey, writeMessageBatch } from './write.js';
import { acceptedBy } from './accepted-by.js';
import type { InlineClaim, SendRequest, SendResult } from './types.js';
import { DELIVER_JOB } from '../webhooks/index.js';

/**
 * How a send's messages reach their carrier once committed:
 * - `queued`: a dispatch job of the deployment's workers (bulk, scheduled and most sends);
 * - `inline`: this process hands them over right after the commit, in the shared rounds of its inline dispatch
 *   (inline-dispatch.ts), when it runs a worker and the request is small, immediate and not a sandbox one; else `queued`;
 * - `awaited`: as `inline`, in the rounds of the shared dispatch, and the caller learns what the carrier answered (OTP).
 */
export type DispatchMode = 'queued' | 'inline' | 'awaited';

/** The largest request `inline` hands over itself; a larger one goes through the dispatch lanes. */
export const INLINE_MAX_RECIPIENTS = 10;

export type SendContext = Pick<
  AppContext,
  'config' | 'db' | 'worker' | 'groupCommit' | 'inlineDispatch' | 'sharedDispatch' | 'prices'
>;

/** A send written in a transaction that is not committed yet. */
export interface PendingSend {
  results: SendResult[];
  /**
   * Call once the transaction has committed: dispatches the messages as the send's mode says. For `awaited`,
   * what the carrier answered for each message this process handed over (none for one claimed elsewhere).
   */
  dispatch(): Promise<DispatchOutcome[]>;
}

/**
 * The one send call of every outbound message (SMS, RCS, chat-app, voice, OTP codes, payment links, opt-out
 * confirmations), for a caller whose transaction writes more than the send: inside `trx` it debits the requests,
 * writes their campaigns and messages (writeMessageBatch: several requests share one account, channel and source)
 * and queues what its dispatch needs; after the commit the caller calls dispatch(). Throws Refusal insufficient_credits
 * when the balance does not cover the requests (nothing written) and sandbox_limit past the sandbox quota.
 */
export async function writeSend(
  trx: Transaction<Database>,
  ctx: SendContext,
  reqs: SendRequest[],
  mode: DispatchMode,
): Promise<PendingSend> {
  const claims = reqs.map((req) => claimFor(ctx, req, mode));
  const results = await writeMessageBatch(trx, ctx, reqs, claims);
  return { results, dispatch: () => dispatchAfterCommit(ctx, reqs, results, claims, mode) };
}

/**
 * writeSend in a transaction of its own, shared with the concurrent sends of the process through its group commit
 * (answered after the shared COMMIT), then its dispatch. `alsoWrite` writes what the caller records with the send in
 * the same transaction. Single-request sends of one account, channel and source that arrive while the group commit forms
 * its next batch are written together (one price lookup, opt-out query, debit and INSERT each for all of them), each
 * keeping its campaign and answer; if they cannot all be written (the balance covers only some), each is written alone.
 */
export async function send(
  ctx: SendContext,
  reqs: SendRequest[],
  mode: DispatchMode,
  alsoWrite?: (trx: Transaction<Database>, results: SendResult[]) => Promise<void>,
): Promise<SendResult[]> {
  const claims = reqs.map((req) => claimFor(ctx, req, mode));
  const results =
    reqs.length === 1
      ? [await sendMerged(ctx, { req: reqs[0], claim: claims[0], alsoWrite })]
      : await ctx.groupCommit.run(
          async (trx) => {
            const written = await writeMessageBatch(trx, ctx, reqs, claims);
            await alsoWrite?.(trx, written);
            return written;
          },
          reqs[0].accountId,
          reqs.reduce((n, r) => n + r.recipients.length, 0),
        );
  await dispatchAfterCommit(ctx, reqs, results, claims, mode);
  return results;
}

export interface OneSend {
  req: SendRequest;
  claim: InlineClaim | undefined;
  alsoWrite?: (trx: Transaction<Database>, results: SendResult[]) => Promise<void>;
}

/**
 * One request through the group commit, merged with the sends that may share its writes (writeMessageBatch); the
 * caller hands it over (send does; the write budget bench holds the dispatch to count it apart).
 */
export function sendMerged(ctx: SendContext, one: OneSend): Promise<SendResult> {
  const { req } = one;
  // What writeMessageBatch requires its requests to share, and who accepts them (recorded on their campaigns).
  const key = `${batchKey(req)}${acceptedBy()}`;
  return ctx.groupCommit.runMerged(
    key,
    one,
    async (trx, sends: OneSend[]) => {
      const written = await writeMessageBatch(
        trx,
        ctx,
        sends.map((s) => s.req),
        sends.map((s) => s.claim),
      );
      for (let i = 0; i < sends.length; i++) await sends[i].alsoWrite?.(trx, [written[i]]);
      return written;
    },
    req.accountId,
    req.recipients.length,
  );
}

/** The claim a request's messages are inserted with when this process hands them over itself; undefined when queued. */
function claimFor(ctx: SendContext, req: SendRequest, mode: DispatchMode): InlineClaim | undefined {
  if (mode === 'queued' || req.sandbox === true || req.scheduledAt) return undefined;
  if (mode === 'awaited') return ctx.sharedDispatch.claim();
  // A process that runs no worker (API only, tests) leaves dispatch to the processes that do.
  if (!ctx.worker.running || req.recipients.length > INLINE_MAX_RECIPIENTS) return undefined;
  return ctx.inlineDispatch.claim();
}

async function dispatchAfterCommit(
  ctx: SendContext,
  reqs: SendRequest[],
  results: SendResult[],
  claims: Array<InlineClaim | undefined>,
  mode: DispatchMode,
): Promise<DispatchOutcome[]> {
  const awaited: Array<Promise<DispatchOutcome[]>> = [];
  let queued = false;
  reqs.forEach((req, i) => {
    const claim = claims[i];
    const { campaignId, messageIds } = results[i];
    if (claim && mode === 'awaited') awaited.push(ctx.sharedDispatch.dispatch(messageIds, claim));
    else if (claim) ctx.inlineDispatch.add(campaignId, messageIds, claim);
    else if (req.sandbox !== true && !req.scheduledAt) queued = true;
  });
  const optedOut = results.some((r) => r.optedOut.length > 0);
  // Wake the lanes with new work: the dispatch jobs just queued, the confirmations of held-back recipients.
  if (queued || optedOut) ctx.worker.nudge(...(queued ? [DISPATCH_JOB] : []), ...(optedOut ? [DELIVER_JOB] : []));
  return (await Promise.all(awaited)).flat();
}
