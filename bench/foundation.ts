import Fastify from 'fastify';
import { fmt, load, startBenchService, type LoadResult } from './lib.js';

const ROUNDS = 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * POST /credits/consult with a valid key (authentication, one indexed query,
 * envelope) against a bare Fastify route that does nothing, in the same run.
 * The two alternate for three rounds and the medians are compared, so a
 * burst of load on the shared machine does not land on one side only.
 */
export async function benchFoundation(): Promise<string> {
  const bare = Fastify({ logger: false });
  bare.post('/noop', async () => ({ ok: true }));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const address = bare.server.address();
  const barePort = address && typeof address === 'object' ? address.port : 0;
  const svc = await startBenchService();

  const baseline: LoadResult[] = [];
  const consult: LoadResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    baseline.push(
      await load({
        url: `http://127.0.0.1:${barePort}/noop`,
        headers: { 'content-type': 'application/json' },
        body: '{}',
        durationSec: 5,
      }),
    );
    consult.push(
      await load({
        url: `${svc.base}/credits/consult`,
        headers: { apikey: svc.apikey, 'content-type': 'application/json' },
        body: '{}',
        durationSec: 5,
      }),
    );
  }
  await svc.close();
  await bare.close();
  for (const r of consult)
    if (r.non2xx > 0 || r.errors > 0)
      throw new Error(`credits/consult answered ${r.non2xx} non-2xx and ${r.errors} errors`);

  const row = (label: string, rs: LoadResult[]) =>
    `| ${label} | ${rs.map((r) => fmt(r.requestsPerSecond)).join(' / ')} | ${fmt(median(rs.map((r) => r.requestsPerSecond)))} | ${median(rs.map((r) => r.p50Ms))} | ${median(rs.map((r) => r.p99Ms))} |`;
  const ratio = median(consult.map((r) => r.requestsPerSecond)) / median(baseline.map((r) => r.requestsPerSecond));
  return [
    '## Foundation: authenticated request vs bare Fastify (SQLite)',
    '',
    `50 connections, autocannon in its own process; ${ROUNDS} alternating rounds of 5 s each, medians compared.`,
    '',
    '| endpoint | requests/s per round | median requests/s | p50 ms | p99 ms |',
    '|---|---:|---:|---:|---:|',
    row('bare Fastify POST /noop (baseline)', baseline),
    row('POST /credits/consult (apikey)', consult),
    '',
    `Ratio /credits/consult ÷ baseline (medians): **${fmt(ratio, 2)}** (target ≥ 0.60).`,
    '',
  ].join('\n');
}
