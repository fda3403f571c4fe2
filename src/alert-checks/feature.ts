import type { Feature } from '../feature.js';
import { deliverAlert } from '../alerts/deliver.js';
import { ALERT_DELIVER_JOB } from '../alerts/episodes.js';
import { AlertEvaluator } from './evaluator.js';

/** Operator alerts: the evaluator (in the process holding its lease) and the delivery of each alert. */
export const alerts: Feature = {
  name: 'alerts',
  jobs(worker, ctx) {
    worker.register(
      'alerts',
      {
        kind: ALERT_DELIVER_JOB,
        handler: (p: { deliveryId: number }, { job }) => deliverAlert(ctx, p.deliveryId, job),
      },
      2,
    );
    new AlertEvaluator(ctx).start();
  },
};
