import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely } from 'kysely';

/** Runs a statement of the caller's on the connection of the query being watched (its transaction, if any). */
export type RunOnSameConnection = (query: unknown) => Promise<unknown>;

const watched = new AsyncLocalStorage<true>();

/**
 * Runs `work` while every query Kysely sends through `kysely` (and through its transactions, which share the
 * executor's prototype) on behalf of `work` is first passed to `onQuery` with its SQL. Queries of the service's
 * background work (housekeeping, carrier upkeep) run in other async contexts and are not passed. `onQuery` may run a
 * statement of its own before the query, on the same connection. Resolves or rejects as `work` does.
 */
export async function watchQueries<T>(
  kysely: Kysely<any>,
  onQuery: (sql: string, run: RunOnSameConnection) => void | Promise<void>,
  work: () => Promise<T>,
): Promise<T> {
  const executor = Object.getPrototypeOf((kysely as any).getExecutor());
  const execute = executor.executeQuery;
  executor.executeQuery = async function (this: unknown, query: { sql: string }, ...rest: unknown[]) {
    if (watched.getStore()) await onQuery(query.sql, (q) => execute.call(this, q, ...rest));
    return execute.call(this, query, ...rest);
  };
  try {
    return await watched.run(true, work);
  } finally {
    executor.executeQuery = execute;
  }
}
