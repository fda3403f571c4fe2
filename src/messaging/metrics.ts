import { Counter, Histogram, type Registry } from 'prom-client';
import type { SubmitOutcome } from './ports.js';
import type { MessageStatus } from './tables.js';
import type { Channel, TrafficClass } from './types.js';

/**
 * What the outbound pipeline reports to /metrics, counted by this process
 * once the transaction that made the change has committed (sum over the
 * processes in Prometheus):
 * - messages by channel and the status they reached (sent, refused,
 *   delivered, undelivered);
 * - final receipts by carrier and outcome, and the time from the hand-off to
 *   the final receipt, per carrier (the dashboard's delivery rate and latency).
 */
export interface PipelineMetrics {
  messages: Counter<'channel' | 'status'>;
  /** Messages handed over (sent) or refused at the hand-off, by traffic class. */
  byClass: Counter<'class' | 'status'>;
  receipts: Counter<'carrier' | 'status'>;
  receiptLatency: Histogram<'carrier'>;
}

const MESSAGES = 'mensajero_messages_total';
const RECEIPTS = 'mensajero_carrier_receipts_total';
const RECEIPT_LATENCY = 'mensajero_carrier_receipt_latency_seconds';
const BY_CLASS = 'mensajero_messages_by_class_total';

/** The pipeline's metrics on this process's registry, registered on first use (one registry per process). */
export function pipelineMetrics(registry: Registry): PipelineMetrics {
  const existing = registry.getSingleMetric(MESSAGES);
  if (existing)
    return {
      messages: existing as PipelineMetrics['messages'],
      byClass: registry.getSingleMetric(BY_CLASS) as PipelineMetrics['byClass'],
      receipts: registry.getSingleMetric(RECEIPTS) as PipelineMetrics['receipts'],
      receiptLatency: registry.getSingleMetric(RECEIPT_LATENCY) as PipelineMetrics['receiptLatency'],
    };
  const registers = [registry];
  return {
    messages: new Counter({
      name: MESSAGES,
      help: 'Messages by channel and the status they reached in this process (sent, refused, delivered, undelivered)',
      labelNames: ['channel', 'status'],
      registers,
    }),
    byClass: new Counter({
      name: BY_CLASS,
      help: 'Messages this process handed to a carrier (sent) or that the hand-off closed (refused, undelivered), by traffic class',
      labelNames: ['class', 'status'],
      registers,
    }),
    receipts: new Counter({
      name: RECEIPTS,
      help: 'Final receipts applied by this process, by carrier and outcome (delivered, undelivered)',
      labelNames: ['carrier', 'status'],
      registers,
    }),
    receiptLatency: new Histogram({
      name: RECEIPT_LATENCY,
      help: 'From the hand-off to the carrier to its final receipt, per carrier',
      labelNames: ['carrier'],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600, 21600, 86400],
      registers,
    }),
  };
}

/** Counts messages that reached `status`, by channel. */
export function countMessages(
  metrics: PipelineMetrics,
  rows: Iterable<{ channel: Channel }>,
  status: Exclude<MessageStatus, 'scheduled' | 'queued' | 'sandbox'>,
): void {
  const byChannel = new Map<Channel, number>();
  for (const r of rows) byChannel.set(r.channel, (byChannel.get(r.channel) ?? 0) + 1);
  for (const [channel, n] of byChannel) metrics.messages.inc({ channel, status }, n);
}

/**
 * A carrier as a label: the operator's connectors by name; the connectors of
 * chat-app instances bound to their own number (`instance:<id>`, one per
 * customer instance) as one `instance`, so accounts cannot grow the series.
 */
export const carrierLabel = (carrier: string | null): string =>
  carrier === null ? 'unknown' : carrier.startsWith('instance:') ? 'instance' : carrier;

/** A final receipt: its outcome by carrier, and how long after the hand-off it came. */
export function observeReceipt(
  metrics: PipelineMetrics,
  r: { carrier: string | null; code: number; at: number; sent_at: number | null },
): void {
  const carrier = carrierLabel(r.carrier);
  metrics.receipts.inc({ carrier, status: r.code === 0 ? 'delivered' : 'undelivered' });
  if (r.sent_at !== null) metrics.receiptLatency.observe({ carrier }, Math.max(0, r.at - r.sent_at) / 1000);
}

/** Counts a batch's hand-offs and refusals with the statuses dispatch.ts records for them. */
export function countOutcomes(
  metrics: PipelineMetrics,
  channel: Channel,
  outcomes: SubmitOutcome[],
  refusedCode: number,
  classes: TrafficClass[],
): void {
  const statusOf = (o: SubmitOutcome) =>
    o.ok ? 'sent' : !o.permanent ? null : (o.status ?? refusedCode) === refusedCode ? 'refused' : 'undelivered';
  for (const status of ['sent', 'refused', 'undelivered'] as const) {
    const n = outcomes.filter((o) => statusOf(o) === status).length;
    if (n > 0) metrics.messages.inc({ channel, status }, n);
  }
  outcomes.forEach((o, i) => {
    const status = statusOf(o);
    if (status) metrics.byClass.inc({ class: classes[i] ?? 'bulk', status });
  });
}
