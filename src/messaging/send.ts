import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { Database } from '../db/schema.js';
import { DISPATCH_JOB } from './dispatch.js';
import type { DispatchOutcome } from './ports.js';
import { batchKey, submitMessageBatch } from './write.js';
import { acceptedBy } from './accepted-by.js';
import type { InlineClaim, SubmitRequest, SubmitResult } from './types.js';
import { DELIVER_JOB } from '../webhooks/index.js';

/**
 * How a send's messages reach their carrier once committed:
 * - `queued`: a dispatch job of the deployment's workers (bulk, scheduled and most sends);
 * - `inline`: this process hands them over right after the commit, in the shared rounds of its inline hand-off
 *   (handoff.ts), when it runs a worker and the request is small, immediate and not a sandbox one; else `queued`;
 * - `awaited`: as `inline`, in the rounds of the shared dispatch, and the caller learns what the carrier answered (OTP).
 */
export type HandOver = 'queued' | 'inline' | 'awaited';

/** The largest request `inline` hands over itself; a larger one goes through the dispatch lanes. */
export const INLINE_MAX_RECIPIENTS = 10;

export type SendContext = Pick<
  AppContext,
  'config' | 'db' | 'worker' | 'groupCommit' | 'handOff' | 'sharedDispatch' | 'prices'
>;

/** A send written in a transaction that is not committed yet. */
export interface PendingSend {
  results: SubmitResult[];
  /**
   * Call once the transaction has committed: hands the messages over as the send's HandOver says. For `awaited`,
   * what the carrier answered for each message this process handed over (none for one claimed elsewhere).
   */
  handOver(): Promise<DispatchOutcome[]>;
}

/**
 * The one send call of every outbound message (SMS, RCS, chat-app, voice, OTP codes, payment links, opt-out
 * confirmations), for a caller whose transaction writes more than the send: inside `trx` it debits the requests,
 * writes their campaigns and messages (submitMessageBatch: several requests share one account, channel and source)
 * and queues what the hand-over needs; after the commit the caller calls handOver(). Throws Refusal insufficient_credits
 * when the balance does not cover the requests (nothing written) and sandbox_limit past the sandbox quota.
 */
export async function submitSend(
  trx: Transaction<Database>,
  ctx: SendContext,
  reqs: SubmitRequest[],
  handOver: HandOver,
): Promise<PendingSend> {
  const claims = reqs.map((req) => claimFor(ctx, req, handOver));
  const results = await submitMessageBatch(trx, ctx, reqs, claims);
  return { results, handOver: () => handOverAfterCommit(ctx, reqs, results, claims, handOver) };
}

/**
 * submitSend in a transaction of its own, shared with the concurrent sends of the process through its group commit
 * (answered after the shared COMMIT), then the hand-over. `alsoWrite` writes what the caller records with the send in
 * the same transaction. Single-request sends of one account, channel and source that arrive while the group commit forms
 * its next batch are written together (one price lookup, opt-out query, debit and INSERT each for all of them), each
 * keeping its campaign and answer; if they cannot all be written (the balance covers only some), each is written alone.
 */
export async function send(
  ctx: SendContext,
  reqs: SubmitRequest[],
  handOver: HandOver,
  alsoWrite?: (trx: Transaction<Database>, results: SubmitResult[]) => Promise<void>,
): Promise<SubmitResult[]> {
  const claims = reqs.map((req) => claimFor(ctx, req, handOver));
  const results =
    reqs.length === 1
      ? [await sendMerged(ctx, { req: reqs[0], claim: claims[0], alsoWrite })]
      : await ctx.groupCommit.run(
          async (trx) => {
            const written = await submitMessageBatch(trx, ctx, reqs, claims);
            await alsoWrite?.(trx, written);
            return written;
          },
          reqs[0].accountId,
          reqs.reduce((n, r) => n + r.recipients.length, 0),
        );
  await handOverAfterCommit(ctx, reqs, results, claims, handOver);
  return results;
}

export interface OneSend {
  req: SubmitRequest;
  claim: InlineClaim | undefined;
  alsoWrite?: (trx: Transaction<Database>, results: SubmitResult[]) => Promise<void>;
}

/**
 * One request through the group commit, merged with the sends that may share its writes (submitMessageBatch); the
 * caller hands it over (send does; the write budget bench holds the hand-over to count it apart).
 */
export function sendMerged(ctx: SendContext, one: OneSend): Promise<SubmitResult> {
  const { req } = one;
  // What submitMessageBatch requires its requests to share, and who accepts them (recorded on their campaigns).
  const key = `${batchKey(req)}${acceptedBy()}`;
  return ctx.groupCommit.runMerged(
    key,
    one,
    async (trx, sends: OneSend[]) => {
      const written = await submitMessageBatch(
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
function claimFor(ctx: SendContext, req: SubmitRequest, handOver: HandOver): InlineClaim | undefined {
  if (handOver === 'queued' || req.sandbox === true || req.scheduledAt) return undefined;
  if (handOver === 'awaited') return ctx.sharedDispatch.claim();
  // A process that runs no worker (API only, tests) leaves dispatch to the processes that do.
  if (!ctx.worker.running || req.recipients.length > INLINE_MAX_RECIPIENTS) return undefined;
  return ctx.handOff.claim();
}

async function handOverAfterCommit(
  ctx: SendContext,
  reqs: SubmitRequest[],
  results: SubmitResult[],
  claims: Array<InlineClaim | undefined>,
  handOver: HandOver,
): Promise<DispatchOutcome[]> {
  const awaited: Array<Promise<DispatchOutcome[]>> = [];
  let queued = false;
  reqs.forEach((req, i) => {
    const claim = claims[i];
    const { campaignId, messageIds } = results[i];
    if (claim && handOver === 'awaited') awaited.push(ctx.sharedDispatch.dispatch(messageIds, claim));
    else if (claim) ctx.handOff.add(campaignId, messageIds, claim);
    else if (req.sandbox !== true && !req.scheduledAt) queued = true;
  });
  const optedOut = results.some((r) => r.optedOut.length > 0);
  // Wake the lanes with new work: the dispatch jobs just queued, the confirmations of held-back recipients.
  if (queued || optedOut) ctx.worker.nudge(...(queued ? [DISPATCH_JOB] : []), ...(optedOut ? [DELIVER_JOB] : []));
  return (await Promise.all(awaited)).flat();
}
