import type { BaseContext } from '../context.js';

// What command modules code against: the runner itself (app/run.ts) builds the context, so it sits with the wiring.

/** Whether to print JSON; set by the global --json option. */
export interface CliOptions {
  json?: boolean;
}

/** Thrown for an operator mistake: printed as a one-line error, exit code 2. */
export class CliError extends Error {}

/**
 * Runs one CLI action against the database named by DATABASE_URL (migrated
 * first), prints its result, and closes everything.
 * `human` renders the result for a terminal when --json is absent; null prints nothing (a command whose output went
 * to standard output already).
 */
export type CliRunner = <T extends Record<string, unknown>>(
  opts: CliOptions,
  action: (ctx: BaseContext) => Promise<T>,
  human?: (result: T) => string | null,
) => Promise<void>;
