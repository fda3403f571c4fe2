import type { Feature } from '../feature.js';
import { SIMULATOR_DLR_JOB } from './carrier-sink.js';
import { pruneFailedAttempts } from './attempts.js';
import { pruneDestinationCounts } from './destination-caps.js';
import { applyDeliveryReports } from './delivery.js';
import { pruneUnmatchedReplies } from './inbound-replies.js';
import { DISPATCH_JOB, dispatchCampaign } from './dispatch.js';
import { scheduleSweep, SWEEP_JOB, sweepRound } from './sweep.js';
import { watchParked } from './parked.js';
import { pruneSpendDays } from './spend.js';

/** The pipeline's jobs: dispatch to carriers, the unsent sweep (every DISPATCH_RETRY_MS, one process at a time), the messages parked for a bind of this process, and the simulated carrier's delivery reports. */
export const messaging: Feature = {
  name: 'messaging',
  jobs(worker, ctx) {
    worker.register('dispatch', {
      kind: DISPATCH_JOB,
      handler: (p: { campaignId: number }, { job, signal, release }) =>
        dispatchCampaign(
          ctx,
          p.campaignId,
          { attempt: job.attempts, last: job.attempts >= job.max_attempts },
          signal,
          release,
        ),
    });
    const every = ctx.config.DISPATCH_RETRY_MS;
    worker.register('dispatch', {
      kind: SWEEP_JOB,
      handler: (_p: null, { signal }) => sweepRound(ctx, signal),
    });
    const first = scheduleSweep(ctx.db.kysely, Date.now(), every);
    worker.track(first.catch((err) => ctx.log.warn({ err }, 'scheduling the unsent sweep failed')));
    // Messages other processes left for a connector bound here (no bind there), handed over by this process.
    watchParked(ctx);
    worker.register('carrier', {
      kind: SIMULATOR_DLR_JOB,
      handler: async (p: { reports: Array<[number, number]> }) => {
        const at = Date.now();
        await applyDeliveryReports(
          ctx,
          p.reports.map(([messageId, code]) => ({ messageId, code, at })),
        );
      },
    });
  },
  // Failed hand-offs past their days; unmatched replies past UNMATCHED_REPLIES_KEEP_DAYS or the newest KEEP_ROWS.
  prune: async (ctx, now) => ({
    attempts: await pruneFailedAttempts(ctx, now),
    spend_days: await pruneSpendDays(ctx.db.kysely, now),
    destination_counts: await pruneDestinationCounts(ctx.db.kysely, now),
    unmatched_replies: await pruneUnmatchedReplies(ctx.db.kysely, now, {
      keepDays: ctx.config.UNMATCHED_REPLIES_KEEP_DAYS,
      keepRows: ctx.config.UNMATCHED_REPLIES_KEEP_ROWS,
    }),
  }),
};
