// First: sizes the thread pool as `mensajero serve` does.
import '../src/lib/threadpool.js';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { benchFoundation } from './foundation.js';
import { benchOtp } from './otp.js';
import { benchContacts } from './contacts.js';
import { benchReports } from './reports.js';
import { benchReportsPostgres } from './reports-pg.js';
import { benchSms } from './sms.js';
import { benchDrainPostgres } from './drain-pg.js';
import { benchWebhooks } from './webhooks.js';
import { benchSmpp } from './smpp.js';
import { benchSmppServer } from './smpp-server.js';
import { benchSecurity } from './security.js';
import { benchStartup } from './startup.js';
import { benchCluster } from './cluster.js';
import { benchPrices } from './prices.js';
import { benchWriteBudget } from './write-budget.js';
import { benchPgFloor } from './pg-floor.js';
import { benchMemory } from './memory.js';
import { benchTraffic } from './traffic.js';
import { benchRetention } from './retention.js';

/**
 * `npm run bench`: every benchmark in one run, written to bench/RESULTS.md.
 * Figures are ratios against baselines measured in the same run.
 * BENCH=name,name runs a subset and only prints it: RESULTS.md keeps the full run.
 */
const benches: Array<[string, () => Promise<string>]> = [
  ['foundation', benchFoundation],
  ['otp', benchOtp],
  ['sms', benchSms],
  ['write-budget', benchWriteBudget],
  ['drain-pg', benchDrainPostgres],
  ['pg-floor', benchPgFloor],
  ['reports', benchReports],
  ['reports-pg', benchReportsPostgres],
  ['contacts', benchContacts],
  ['webhooks', benchWebhooks],
  ['smpp', benchSmpp],
  ['smpp-server', benchSmppServer],
  ['traffic', benchTraffic],
  ['security', benchSecurity],
  ['startup', benchStartup],
  ['cluster', benchCluster],
  ['prices', benchPrices],
  ['memory', benchMemory],
  ['retention', benchRetention],
];

const only = process.env.BENCH?.split(',');
const header = [
  '# Benchmark results',
  '',
  `Run on ${new Date().toISOString()}, Node ${process.version}, ${(await import('node:os')).cpus().length} cores. Written by \`npm run bench\`.`,
  'Client and server share the machine; compare the ratios, not the absolute figures.',
  '',
].join('\n');
// Each section is printed as it finishes, so that one that fails late does not lose the others.
process.stdout.write(header + '\n');
const sections: string[] = [];
for (const [name, run] of benches) {
  if (only && !only.includes(name)) continue;
  process.stderr.write(`bench: ${name}…\n`);
  const t0 = Date.now();
  sections.push(await run());
  process.stdout.write(sections.at(-1) + '\n');
  process.stderr.write(`bench: ${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}
if (!only) writeFileSync(resolve(import.meta.dirname, '../../bench/RESULTS.md'), header + '\n' + sections.join('\n'));
