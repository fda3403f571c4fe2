import type { Command } from 'commander';
import pino from 'pino';
import { loadConfig } from '../config.js';
import type { BaseContext } from '../context.js';
import { closeBaseContext, createBaseContext } from './boot.js';
import { recordAudit } from '../audit/service.js';
import { cliAuditEntry } from './audit-hook.js';
import { CliError, type CliRunner } from '../cli/runner.js';

/**
 * The runner of main.ts: `invoked` tells which command runs (commander's preAction hook), so that a command that
 * succeeds and is not read-only is recorded in the audit log (audit-hook.ts) before its result is printed.
 */
export function cliRunner(invoked: () => Command | undefined): CliRunner {
  return async (opts, action, human) => {
    let ctx: BaseContext | undefined;
    try {
      ctx = await createBaseContext(loadConfig(), { log: pino({ level: 'warn' }, pino.destination(2)) });
      const result = await action(ctx);
      const command = invoked();
      const entry = command && cliAuditEntry(command);
      const unrecorded = entry
        ? await recordAudit(ctx.db.kysely, entry).then(
            () => undefined,
            (err: Error) => err,
          )
        : undefined;
      const text = opts.json ? JSON.stringify(result) : human ? human(result) : JSON.stringify(result, null, 2);
      if (text !== null) process.stdout.write(text + '\n');
      if (unrecorded) {
        // The change is made: say so rather than invite a second attempt.
        process.stderr.write(`warning: done, but not recorded in the audit log: ${unrecorded.message}\n`);
        process.exitCode = 1;
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (opts.json) process.stdout.write(JSON.stringify({ error: message }) + '\n');
      else process.stderr.write(`error: ${message}\n`);
      process.exitCode = err instanceof CliError ? 2 : 1;
    } finally {
      if (ctx) await closeBaseContext(ctx);
    }
  };
}

/** A runner that records nothing (no command known): tests and embedders. */
export const runCli: CliRunner = cliRunner(() => undefined);
