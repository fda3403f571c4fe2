import { Counter, Gauge, Histogram } from 'prom-client';
import type { AppContext } from '../context.js';

export interface WebhookMetrics {
  delivered: Counter;
  failed: Counter;
  attempts: Counter<'result'>;
  latency: Histogram;
}

/** Webhook delivery metrics on the process's registry; the pending count is read from the database at scrape time. */
export function webhookMetrics(ctx: Pick<AppContext, 'db' | 'metrics'>): WebhookMetrics {
  const registers = [ctx.metrics.registry];
  const pending = new Gauge({
    name: 'mensajero_webhook_events_pending',
    help: 'Events waiting for delivery (all processes)',
    registers,
  });
  ctx.metrics.beforeScrape.push(async () => {
    const row = await ctx.db.kysely
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', '=', 'pending')
      .executeTakeFirst();
    pending.set(Number(row?.n ?? 0));
  });
  return {
    delivered: new Counter({
      name: 'mensajero_webhook_events_delivered_total',
      help: 'Events delivered (HTTP 200) by this process',
      registers,
    }),
    failed: new Counter({
      name: 'mensajero_webhook_events_failed_total',
      help: 'Events that failed after the last retry in this process',
      registers,
    }),
    attempts: new Counter({
      name: 'mensajero_webhook_attempts_total',
      help: 'Delivery attempts by result',
      labelNames: ['result'],
      registers,
    }),
    latency: new Histogram({
      name: 'mensajero_webhook_delivery_latency_seconds',
      help: 'From the event (delivery report or reply) to its successful delivery',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400],
      registers,
    }),
  };
}
