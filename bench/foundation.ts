import Fastify from 'fastify';
import { fmt, load, startBenchService } from './lib.js';

/**
 * POST /credits/consult with a valid key (authentication, one indexed query,
 * envelope) against a bare Fastify route that does nothing, in the same run.
 */
export async function benchFoundation(): Promise<string> {
  const bare = Fastify({ logger: false });
  bare.post('/noop', async () => ({ ok: true }));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const address = bare.server.address();
  const barePort = address && typeof address === 'object' ? address.port : 0;
  const baseline = await load({ url: `http://127.0.0.1:${barePort}/noop`, headers: { 'content-type': 'application/json' }, body: '{}' });
  await bare.close();

  const svc = await startBenchService();
  const consult = await load({ url: `${svc.base}/credits/consult`, headers: { apikey: svc.apikey, 'content-type': 'application/json' }, body: '{}' });
  await svc.close();
  if (consult.non2xx > 0 || consult.errors > 0) throw new Error(`credits/consult answered ${consult.non2xx} non-2xx and ${consult.errors} errors`);
  const ratio = consult.requestsPerSecond / baseline.requestsPerSecond;
  return [
    '## Foundation: authenticated request vs bare Fastify (SQLite)',
    '',
    '50 connections, 8 s each, autocannon in its own process.',
    '',
    '| endpoint | requests/s | p50 ms | p99 ms |',
    '|---|---:|---:|---:|',
    `| bare Fastify POST /noop (baseline) | ${fmt(baseline.requestsPerSecond)} | ${baseline.p50Ms} | ${baseline.p99Ms} |`,
    `| POST /credits/consult (apikey) | ${fmt(consult.requestsPerSecond)} | ${consult.p50Ms} | ${consult.p99Ms} |`,
    '',
    `Ratio /credits/consult ÷ baseline: **${fmt(ratio, 2)}** (target ≥ 0.60).`,
    '',
  ].join('\n');
}
