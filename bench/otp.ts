import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { fmt, load, startBenchService, type LoadResult } from './lib.js';

const CONNECTIONS = 50;
const DURATION_SEC = 8;

/**
 * OTP create + verify cycles through HTTP on SQLite: each autocannon
 * connection sends POST /v2/otp for a fresh number with code_show 1, then
 * POST /v2/otp/verify with the code it got back. Next to it, in the same run
 * and service, POST /credits/consult (the foundation's figure).
 */
export async function benchOtp(): Promise<string> {
  const svc = await startBenchService();
  try {
    const consult = await load({ url: `${svc.base}/credits/consult`, headers: { apikey: svc.apikey, 'content-type': 'application/json' }, body: '{}', connections: CONNECTIONS, durationSec: DURATION_SEC });
    const cycles = await runChild(svc.base, svc.apikey);
    if (consult.non2xx > 0 || consult.errors > 0) throw new Error(`credits/consult answered ${consult.non2xx} non-2xx and ${consult.errors} errors`);
    if (cycles.non2xx > 0 || cycles.errors > 0) throw new Error(`OTP cycles answered ${cycles.non2xx} non-2xx and ${cycles.errors} errors`);
    const cyclesPerSecond = cycles.requestsPerSecond / 2;
    return [
      '## OTP: create + verify cycles vs /credits/consult (SQLite)',
      '',
      `${CONNECTIONS} connections, ${DURATION_SEC} s each, autocannon in its own process. A cycle is POST /v2/otp (fresh number, sms, code_show 1: a code generated, HMACed and sealed, the message charged, written and handed to the simulated carrier) then POST /v2/otp/verify with that code.`,
      '',
      '| endpoint | requests/s | p50 ms | p99 ms |',
      '|---|---:|---:|---:|',
      `| POST /credits/consult (baseline) | ${fmt(consult.requestsPerSecond)} | ${consult.p50Ms} | ${consult.p99Ms} |`,
      `| POST /v2/otp then /v2/otp/verify | ${fmt(cycles.requestsPerSecond)} | ${cycles.p50Ms} | ${cycles.p99Ms} |`,
      '',
      `Cycles per second: **${fmt(cyclesPerSecond)}**. Ratio cycles/s ÷ /credits/consult requests/s: **${fmt(cyclesPerSecond / consult.requestsPerSecond, 3)}** (OTP requests/s ÷ consult: ${fmt(cycles.requestsPerSecond / consult.requestsPerSecond, 3)}).`,
      '',
    ].join('\n');
  } finally {
    await svc.close();
  }
}

/** The load runs in a child process so that it does not share the server's event loop. */
function runChild(base: string, apikey: string): Promise<LoadResult> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [fileURLToPath(import.meta.url), CHILD_FLAG, base, apikey], { maxBuffer: 16 * 1024 * 1024 }, (err, out) => (err ? reject(err) : resolve(JSON.parse(out)))),
  );
}

const CHILD_FLAG = '--otp-cycles';

async function childMain(base: string, apikey: string): Promise<void> {
  const autocannon = createRequire(import.meta.url)('autocannon');
  let next = 1_000_000_000;
  const headers = { apikey, 'content-type': 'application/json' };
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: DURATION_SEC,
    requests: [
      {
        method: 'POST',
        path: '/v2/otp',
        headers,
        setupRequest: (req: Record<string, unknown>, context: Record<string, unknown>) => {
          context.phone = String(next++);
          return { ...req, body: JSON.stringify({ phone_number: context.phone, country_code: '52', company: 'Bench', code_show: 1 }) };
        },
        onResponse: (status: number, body: string, context: Record<string, unknown>) => {
          if (status === 201) context.code = JSON.parse(body).code;
        },
      },
      {
        method: 'POST',
        path: '/v2/otp/verify',
        headers,
        setupRequest: (req: Record<string, unknown>, context: Record<string, unknown>) => ({ ...req, body: JSON.stringify({ phone_number: context.phone, country_code: '52', code: context.code }) }),
      },
    ],
  });
  const out: LoadResult = { requestsPerSecond: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
  process.stdout.write(JSON.stringify(out));
}

if (process.argv[2] === CHILD_FLAG) await childMain(process.argv[3], process.argv[4]);
