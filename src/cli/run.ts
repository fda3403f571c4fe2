import pino from 'pino';
import { loadConfig } from '../config.js';
import type { BaseContext } from '../context.js';
import { closeBaseContext, createBaseContext } from '../boot.js';

/** Whether to print JSON; set by the global --json option. */
export interface CliOptions {
  json?: boolean;
}

/** Thrown for an operator mistake: printed as a one-line error, exit code 2. */
export class CliError extends Error {}

/**
 * Runs one CLI action against the database named by DATABASE_URL (migrated
 * first), prints its result, and closes everything.
 * `human` renders the result for a terminal when --json is absent.
 */
export type CliRunner = <T extends Record<string, unknown>>(
  opts: CliOptions,
  action: (ctx: BaseContext) => Promise<T>,
  human?: (result: T) => string,
) => Promise<void>;

export const runCli: CliRunner = async (opts, action, human) => {
  let ctx: BaseContext | undefined;
  try {
    ctx = await createBaseContext(loadConfig(), { log: pino({ level: 'warn' }, pino.destination(2)) });
    const result = await action(ctx);
    process.stdout.write(
      opts.json ? JSON.stringify(result) + '\n' : (human ? human(result) : JSON.stringify(result, null, 2)) + '\n',
    );
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (opts.json) process.stdout.write(JSON.stringify({ error: message }) + '\n');
    else process.stderr.write(`error: ${message}\n`);
    process.exitCode = err instanceof CliError ? 2 : 1;
  } finally {
    if (ctx) await closeBaseContext(ctx);
  }
};
