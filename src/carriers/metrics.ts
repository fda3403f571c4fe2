import { Counter, Gauge } from 'prom-client';
import type { Metrics } from '../metrics/metrics.js';
import type { CarrierManager } from './manager.js';
import { CLASS_ORDER } from './traffic-line.js';

const COUNTERS = ['submitted', 'refused', 'throttled', 'errors', 'receipts', 'unreadable_receipts', 'replies'] as const;

/**
 * This process's connectors in /metrics: state (1 for the current one),
 * binds, window in use, and counters since the process started.
 */
export function carrierMetrics(metrics: Metrics, manager: CarrierManager): void {
  const registers = [metrics.registry];
  const state = new Gauge({
    name: 'mensajero_carrier_state',
    help: 'Connector state in this process (1 for the current state)',
    labelNames: ['carrier', 'state'],
    registers,
  });
  const binds = new Gauge({
    name: 'mensajero_carrier_binds',
    help: 'Binds this process holds up, per connector',
    labelNames: ['carrier'],
    registers,
  });
  const window = new Gauge({
    name: 'mensajero_carrier_window_in_use',
    help: 'Outstanding submit_sm of this process, per connector',
    labelNames: ['carrier'],
    registers,
  });
  const counters = new Gauge({
    name: 'mensajero_carrier_messages',
    help: 'Connector counters of this process since start (submitted, refused, throttled, errors, receipts, unreadable_receipts, replies)',
    labelNames: ['carrier', 'kind'],
    registers,
  });
  const waiting = new Gauge({
    name: 'mensajero_carrier_line_waiting',
    help: "Messages waiting in this process's line of a connector for a place, per traffic class",
    labelNames: ['carrier', 'class'],
    registers,
  });
  const oldest = new Gauge({
    name: 'mensajero_carrier_line_oldest_seconds',
    help: "How long the oldest message waiting in this process's line of a connector has waited, per traffic class (0: none)",
    labelNames: ['carrier', 'class'],
    registers,
  });
  const demoted = new Gauge({
    name: 'mensajero_carrier_demoted',
    help: 'Connector demoted for its delivery rate (1) or not (0): the state shared by every process',
    labelNames: ['carrier'],
    registers,
  });
  const qualityChanges = new Counter({
    name: 'mensajero_carrier_quality_changes_total',
    help: 'Demotions and recoveries by delivery rate this process decided, per connector',
    labelNames: ['carrier', 'change'],
    registers,
  });
  manager.onQualityChange = (c) => qualityChanges.inc({ carrier: c.carrier, change: c.change });
  metrics.beforeScrape.push(async () => {
    state.reset();
    demoted.reset();
    waiting.reset();
    oldest.reset();
    for (const c of manager.snapshot()) {
      state.set({ carrier: c.name, state: c.state }, 1);
      binds.set({ carrier: c.name }, c.stats.binds);
      window.set({ carrier: c.name }, c.stats.window_in_use);
      for (const k of COUNTERS) counters.set({ carrier: c.name, kind: k }, c.stats[k]);
      demoted.set({ carrier: c.name }, manager.demoted.has(c.name) ? 1 : 0);
      const line = c.stats.line;
      if (!line) continue;
      for (const k of CLASS_ORDER) {
        waiting.set({ carrier: c.name, class: k }, line[k].waiting);
        const at = line[k].oldest_at;
        oldest.set({ carrier: c.name, class: k }, at === null ? 0 : (Date.now() - at) / 1000);
      }
    }
  });
}
