import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { observeReceipt, pipelineMetrics } from './metrics.js';

/** The receipt histogram's series stay bounded: one per operator connector, never one per customer instance. */
describe('receipt metrics labels', () => {
  it('observes hand-off → final receipt per connector, with every bound chat-app instance as one carrier', async () => {
    const registry = new Registry();
    const metrics = pipelineMetrics(registry);
    const at = Date.now();
    observeReceipt(metrics, { carrier: 'smsc-norte', code: 0, at, sent_at: at - 1_500 });
    observeReceipt(metrics, { carrier: 'smsc-norte', code: 1, at, sent_at: at - 40_000 });
    for (let i = 0; i < 50; i++)
      observeReceipt(metrics, { carrier: `instance:inst${i}`, code: 0, at, sent_at: at - 200 });
    const text = await registry.metrics();
    expect(text).toContain('mensajero_carrier_receipt_latency_seconds_bucket{le="2.5",carrier="smsc-norte"} 1');
    expect(text).toContain('mensajero_carrier_receipt_latency_seconds_bucket{le="60",carrier="smsc-norte"} 2');
    expect(text).toContain('mensajero_carrier_receipt_latency_seconds_count{carrier="instance"} 50');
    expect(text).toContain('mensajero_carrier_receipts_total{carrier="instance",status="delivered"} 50');
    expect(text).not.toContain('inst1');
  });
});
