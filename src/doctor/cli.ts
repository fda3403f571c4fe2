import type { Command } from 'commander';
import { checks, missing, type CheckResult, type DoctorState } from './checks.js';
import { redactor, TimedOut, withTimeout } from './probes.js';

/**
 * `mensajero doctor`: what an operator runs on a new install or after an
 * upgrade. It does not go through the usual runner, which migrates the
 * database and creates the secret: the doctor looks and changes nothing
 * (a SQLite file that is not there is reported, not created).
 */
export function doctorCommand(program: Command): void {
  program
    .command('doctor')
    .description(
      'check the configuration, database, secret, ports, the SMPP listener, carriers and Redis; exit code 1 when one fails',
    )
    .option('--json', 'print one JSON object')
    .action(async (o: { json?: boolean }) => {
      const { results, timedOut } = await diagnose(process.env);
      const healthy = results.every((r) => r.status !== 'fail');
      process.stdout.write(
        (o.json ? JSON.stringify({ ok: healthy, checks: results }) : humanReport(healthy, results)) + '\n',
      );
      process.exitCode = healthy ? 0 : 1;
      // A connection that never answered would keep the process alive.
      if (timedOut) process.exit();
    });
}

/** Runs every check that applies, in order; a check that throws or times out fails with its error's message. */
export async function diagnose(env: NodeJS.ProcessEnv): Promise<{ results: CheckResult[]; timedOut: boolean }> {
  const redact = redactor(env);
  const state: DoctorState = { env };
  const results: CheckResult[] = [];
  let timedOut = false;
  try {
    for (const check of checks) {
      const unmet = missing(check.needs, state);
      if (unmet) {
        results.push({ name: check.name, status: 'warn', detail: unmet });
        continue;
      }
      if (check.applies && !check.applies(state.config!)) continue;
      try {
        const outcome = await withTimeout(check.run(state));
        results.push(...(Array.isArray(outcome) ? outcome : [{ name: check.name, ...outcome }]));
      } catch (err) {
        timedOut ||= err instanceof TimedOut;
        results.push({ name: check.name, status: 'fail', detail: err instanceof Error ? err.message : String(err) });
      }
    }
  } finally {
    await state.db?.close();
  }
  return { results: results.map((r) => ({ ...r, detail: redact(r.detail) })), timedOut };
}

function humanReport(healthy: boolean, results: CheckResult[]): string {
  const width = Math.max(...results.map((r) => r.name.length));
  const lines = results.map((r) => `${r.status.padEnd(4)}  ${r.name.padEnd(width)}  ${r.detail}`);
  return [...lines, healthy ? 'no check failed' : 'a check failed'].join('\n');
}
