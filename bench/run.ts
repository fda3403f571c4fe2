// First: sizes the thread pool as `mensajero serve` does.
import '../src/lib/threadpool.js';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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
import { benchCost } from './cost.js';
import { benchQuota } from './quota.js';
import { benchRetention } from './retention.js';
import { mergeResults, stampSections } from './results-file.js';

/**
 * `npm run bench`: every benchmark in one run, written to bench/RESULTS.md.
 * Figures are ratios against baselines measured in the same run.
 * BENCH=name,name runs a subset: its sections replace those of the same `## ` heading in RESULTS.md (new ones are
 * appended) and the others are kept. Every section states the date and commit of the run that wrote it.
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
  ['cost', benchCost],
  ['retention', benchRetention],
  // Only when asked for (BENCH=quota): it needs a writable cgroup and takes minutes.
  ['quota', benchQuota],
];

const only = process.env.BENCH?.split(',');
const unknown = only?.filter((name) => !benches.some(([b]) => b === name)) ?? [];
if (unknown.length > 0) throw new Error(`BENCH names no benchmark: ${unknown.join(', ')}`);
const os = await import('node:os');
const commit = (() => {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', resolve(import.meta.dirname, '../..'), ...args], { encoding: 'utf8' }).trim();
    return (
      git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no') ? ' (modified)' : '')
    );
  } catch {
    return 'unknown commit';
  }
})();
const runLine = `Run on ${new Date().toISOString()}, commit ${commit}, Node ${process.version}, ${os.cpus().length} cores.`;
const header = [
  '# Benchmark results',
  '',
  'Written by `npm run bench`; `BENCH=name,name npm run bench` replaces only the sections it runs (matched by their `## ` heading) and keeps the others.',
  'Each section states the date and commit of the run that wrote it.',
  'Client and server share the machine; compare the ratios, not the absolute figures.',
  '',
].join('\n');
// Each section is printed as it finishes, so that one that fails late does not lose the others.
process.stdout.write(runLine + '\n\n');
const sections: string[] = [];
for (const [name, run] of benches) {
  if (only ? !only.includes(name) : name === 'quota') continue;
  process.stderr.write(`bench: ${name}…\n`);
  const t0 = Date.now();
  sections.push(stampSections(await run(), runLine));
  process.stdout.write(sections.at(-1) + '\n');
  process.stderr.write(`bench: ${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}
const file = resolve(import.meta.dirname, '../../bench/RESULTS.md');
const produced = sections.join('\n');
writeFileSync(
  file,
  only && existsSync(file) ? mergeResults(readFileSync(file, 'utf8'), produced) : header + '\n' + produced,
);
