import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { fmt, startBenchService } from './lib.js';
import { recordEvents, type NewEvent } from '../src/webhooks/index.js';
import { writeMessages as submitMessages } from '../src/messaging/write.js';

const ROUNDS = 5;
const EVENTS_PER_ROUND = 1500;
const LATENCY_SENDS = 150;

/** A local receiver answering 200 to HEAD and POST, noting when each reference arrives. */
async function startReceiver() {
  const arrivals = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method === 'POST') {
        const reference = new URLSearchParams(body).get('reference');
        if (reference && !arrivals.has(reference)) arrivals.set(reference, Date.now());
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    arrivals,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

const waitFor = async (check: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('webhook bench: deliveries did not finish in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * Webhook delivery: events per second to a local receiver (HEAD + signed
 * form POST each, every attempt logged) against a bare undici client doing
 * the same HEAD + POST pairs at the same concurrency; then the latency from a
 * simulated delivery report to the event's arrival at the receiver.
 */
export async function benchWebhooks(): Promise<string> {
  const receiver = await startReceiver();
  const hostConcurrency = 8;
  const body = 'type=confirmation&reference=baseline&status=0&number=525512345678&date=20260101000000&extra_params=';

  /** Baseline: HEAD + POST pairs from a bare client, 8 at a time (the per-host cap), keep-alive (HEAD included: reset false). */
  const agent = new Agent({ connections: hostConcurrency });
  const baselineRound = async (): Promise<number> => {
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: hostConcurrency }, async () => {
        while (next++ < EVENTS_PER_ROUND) {
          await (await request(receiver.url, { dispatcher: agent, method: 'HEAD', reset: false })).body.dump();
          await (
            await request(receiver.url, {
              dispatcher: agent,
              method: 'POST',
              body,
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
            })
          ).body.dump();
        }
      }),
    );
    return EVENTS_PER_ROUND / ((performance.now() - t0) / 1000);
  };

  // The account's in-flight cap is raised to the host's, so both sides run 8 at a time.
  const svc = await startBenchService({
    WEBHOOK_ALLOW_PRIVATE: 'true',
    SIMULATOR_DLR_DELAY_MS: '0',
    WEBHOOK_HOST_CONCURRENCY: String(hostConcurrency),
    WEBHOOK_ACCOUNT_CONCURRENCY: String(hostConcurrency),
  });
  try {
    const ctx = svc.service.ctx;
    const added = await fetch(`${svc.base}/webhook/add`, {
      method: 'POST',
      headers: { apikey: svc.apikey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, status: '1' }),
    });
    const addCode = ((await added.json()) as { code: string }).code;
    if (addCode !== 'add_webhook_01') throw new Error(`webhook bench: /webhook/add answered ${addCode}`);

    /** EVENTS_PER_ROUND events recorded in one transaction, delivered by the webhook lane. */
    const deliveryRound = async (round: number): Promise<number> => {
      const events: NewEvent[] = Array.from({ length: EVENTS_PER_ROUND }, (_, i) => ({
        accountId: svc.accountId,
        type: 'confirmation',
        reference: `bench-${round}-${i}`,
        payload: {
          type: 'confirmation',
          reference: `bench-${round}-${i}`,
          status: '0',
          number: '525512345678',
          date: '20260101000000',
          extra_params: '',
        },
      }));
      const before = receiver.arrivals.size;
      await ctx.db.kysely.transaction().execute((trx) => recordEvents(trx, events));
      const t1 = performance.now();
      ctx.worker.nudge();
      await waitFor(() => receiver.arrivals.size >= before + EVENTS_PER_ROUND, 120_000);
      return EVENTS_PER_ROUND / ((performance.now() - t1) / 1000);
    };

    // Interleaved rounds: both sides see the same machine load; the ratio is the median of the rounds' ratios.
    const baselines: number[] = [];
    const deliveries: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      baselines.push(await baselineRound());
      deliveries.push(await deliveryRound(round));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const baselinePerSec = median(baselines);
    const deliveredPerSec = median(deliveries);
    const ratio = median(deliveries.map((d, i) => d / baselines[i]));

    // Latency: one SMS at a time; from its simulated delivery report (messages.dlr_at) to the POST's arrival.
    const references: string[] = [];
    for (let i = 0; i < LATENCY_SENDS; i++) {
      const res = await ctx.db.kysely.transaction().execute((trx) =>
        submitMessages(trx, ctx, {
          accountId: svc.accountId,
          channel: 'sms',
          source: 'sms',
          recipients: [{ countryCode: '52', number: `5255${String(10000000 + i)}` }],
          text: 'bench',
        }),
      );
      // No nudge: the report and the event are found by polling, as with real carrier traffic.
      references.push(res.references[0].reference);
      await new Promise((r) => setTimeout(r, 20));
    }
    await waitFor(() => references.every((r) => receiver.arrivals.has(r)), 60_000);
    const reports = await ctx.db.kysely
      .selectFrom('messages')
      .select(['reference', 'dlr_at'])
      .where('reference', 'in', references)
      .execute();
    const latencies = reports.map((m) => receiver.arrivals.get(m.reference)! - m.dlr_at!).sort((a, b) => a - b);

    return [
      '## Webhooks: event delivery (SQLite)',
      '',
      `${ROUNDS} interleaved rounds of ${fmt(EVENTS_PER_ROUND)} events to a local receiver, each a HEAD then a signed form POST, every attempt logged; per-host and per-account concurrency ${hostConcurrency}. Medians of the rounds.`,
      'Receiver, client and service share one process.',
      '',
      '| path | events/s |',
      '|---|---:|',
      `| bare undici HEAD + POST pairs, ${hostConcurrency} at a time (baseline) | ${fmt(baselinePerSec)} |`,
      `| Mensajero webhook lane (claim, sign, HEAD + POST, log, mark delivered) | ${fmt(deliveredPerSec)} |`,
      '',
      `Ratio delivery ÷ baseline (median of the rounds' ratios): **${fmt(ratio, 2)}** (rounds: ${deliveries.map((d, i) => fmt(d / baselines[i], 2)).join(', ')}).`,
      '',
      `Latency from a simulated delivery report to the event's arrival (${LATENCY_SENDS} single sends, WORKER_POLL_MS ${ctx.config.WORKER_POLL_MS}): p50 **${fmt(percentile(latencies, 50))} ms**, p99 **${fmt(percentile(latencies, 99))} ms**.`,
      'The webhook lane finds a new event by polling (WORKER_POLL_MS), so the poll interval bounds this latency. Both rows keep their connections (a pool per checked address; HEAD with reset false).',
      '',
    ].join('\n');
  } finally {
    await agent.close();
    await svc.close();
    await receiver.close();
  }
}
