import type { Feature } from '../feature.js';
import { createDelivery, deliverEvent } from './deliver.js';
import { DELIVER_JOB } from './record.js';
import { forgetMessageEvents } from './events-store.js';
import { webhooksRoutes } from './routes.js';

/** Lane of the delivery jobs: its own slots, so a dead receiver never slows SMS dispatch. */
const LANE = 'webhooks';

export const webhooks: Feature = {
  name: 'webhooks',
  routes: webhooksRoutes,
  forgetMessages: forgetMessageEvents,
  jobs(worker, ctx) {
    const delivery = createDelivery(ctx);
    worker.register(
      LANE,
      {
        kind: DELIVER_JOB,
        handler: (p: { eventId: number }, { job, signal }) =>
          deliverEvent(delivery, p.eventId, { id: Number(job.id), lockedBy: job.locked_by! }, signal),
      },
      ctx.config.WEBHOOK_CONCURRENCY,
    );
  },
};
