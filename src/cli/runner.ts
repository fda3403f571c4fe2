import type { BaseContext } from '../context.js';

// What command modules code against: the runner itself (app/run.ts) builds the context, so it sits with the wiring.

/** Whether to print JSON; set by the global --json option. */
export interface CliOptions {
  json?: boolean;
}

/**
 * What a refusal is, apart from its English line: a stable code and the values its sentence names, so a front end
 * (the panel) can say it in its own words.
 */
export interface Refusal {
  code: string;
  params?: Record<string, string | number>;
}

/** Thrown for an operator mistake: printed as a one-line error, exit code 2 (`refusal` never changes that line). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly refusal?: Refusal,
  ) {
    super(message);
  }
}

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
