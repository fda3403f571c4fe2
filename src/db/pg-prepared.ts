import type pg from 'pg';

/** Statements a connection keeps prepared at most; later ones run unnamed, as all did before. */
export const MAX_PREPARED = 256;
/** Runs of one text on a connection before it is prepared: a text run once (a migration, a rare IN-list length) never is. */
const RUNS_BEFORE_PREPARING = 2;
/** Texts counted at most per connection; the counts start again past it. */
const MAX_COUNTED = 2048;
/** Longer texts (long IN lists) run unnamed. */
const MAX_TEXT = 8192;
/**
 * Statements whose result columns a migration could change (`select *`, `"t".*`, `returning *`). PostgreSQL replans a
 * prepared statement after a schema change, but refuses to run one whose result type changed ("cached plan must not
 * change result type"): a process serving while another migrates would fail those. Explicit columns cannot change.
 */
const ALL_COLUMNS = /\bselect\s+(?:distinct\s+)?\*|"\s*\.\s*\*|\breturning\s+\*/i;
/** SQLSTATE 0A000, feature_not_supported: what PostgreSQL answers for a prepared statement whose result type changed. */
const RESULT_TYPE_CHANGED = '0A000';

/**
 * PostgreSQL parses and plans every unnamed statement anew, which on a
 * send's short statements is a good part of the server's work. This makes a pool's connection
 * prepare a statement under a name from the second time it runs its text, so
 * PostgreSQL parses it once per connection and keeps its plan, within
 * MAX_PREPARED statements per connection. Kysely runs every query as
 * `client.query(text, values)`; other calls pass through. A pooler between
 * the service and PostgreSQL must keep a session's prepared statements (set
 * PG_PREPARED_STATEMENTS=false behind one that does not).
 */
export function prepareRepeatedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const runs = new Map<string, number>();
  const names = new Map<string, string>();
  const never = new Set<string>();
  let next = 0;

  const nameFor = (text: string): string | undefined => {
    const name = names.get(text);
    if (name !== undefined || names.size >= MAX_PREPARED || never.has(text)) return name;
    if (text.length > MAX_TEXT || ALL_COLUMNS.test(text)) return undefined;
    const seen = (runs.get(text) ?? 0) + 1;
    if (seen < RUNS_BEFORE_PREPARING) {
      if (runs.size >= MAX_COUNTED) runs.clear();
      runs.set(text, seen);
      return undefined;
    }
    runs.delete(text);
    const prepared = `mensajero_${next++}`;
    names.set(text, prepared);
    return prepared;
  };

  client.query = ((...args: unknown[]) => {
    const [text, values, callback] = args;
    if (typeof text !== 'string' || !Array.isArray(values) || callback !== undefined) return query(...args);
    const name = nameFor(text);
    if (name === undefined) return query(text, values);
    return (query({ name, text, values }) as Promise<unknown>).catch((err: unknown) => {
      // Changed under it all the same (a column's type): run it unnamed from now on.
      if ((err as { code?: unknown } | null)?.code === RESULT_TYPE_CHANGED) {
        names.delete(text);
        if (never.size >= MAX_COUNTED) never.clear();
        never.add(text);
      }
      throw err;
    });
  }) as typeof client.query;
}
