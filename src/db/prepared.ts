import { CompiledQuery, type Compilable, type QueryResult } from 'kysely';
import { isPostgres, type Executor } from './engine.js';

/** Where a value goes, the builder puts a slot: a marker text (it starts with NUL) replaced by the value at each run. */
type Slot = (name: string) => any;

interface Compiled {
  sql: string;
  parameters: readonly unknown[];
  /** Index in `parameters` → name of the value that goes there. */
  slots: Array<[number, string]>;
}

/**
 * A query built with Kysely once per engine and then run as SQL text with
 * only its parameters changed. Building and compiling a Kysely query costs
 * more than running a point query on SQLite (some 20 µs per statement), so
 * the statements of hot paths (OTP create and verify) are prepared.
 * `build` must give the same SQL whatever the values: a value that changes
 * the text (an IN list, an optional WHERE) needs a query of its own.
 */
export function prepared<Params extends Record<string, unknown>, Row>(
  build: (db: Executor, slot: Slot) => Compilable<Row>,
) {
  const byEngine = new Map<boolean, Compiled>();
  const compile = (db: Executor): Compiled => {
    const postgres = isPostgres(db);
    let compiled = byEngine.get(postgres);
    if (!compiled) {
      const query = build(db, (name) => `\u0000${name}`).compile();
      const slots: Array<[number, string]> = [];
      query.parameters.forEach((p, i) => {
        if (typeof p === 'string' && p.startsWith('\u0000')) slots.push([i, p.slice(1)]);
      });
      compiled = { sql: query.sql, parameters: query.parameters, slots };
      byEngine.set(postgres, compiled);
    }
    return compiled;
  };
  return async (db: Executor, params: Params): Promise<QueryResult<Row>> => {
    const { sql, parameters, slots } = compile(db);
    const values = [...parameters];
    for (const [i, name] of slots) {
      if (!(name in params)) throw new Error(`prepared query: no value for ${name}`);
      values[i] = params[name];
    }
    return db.executeQuery<Row>(CompiledQuery.raw(sql, values));
  };
}

/**
 * prepared() with positional values: `build` receives a slot for each value
 * of the call, in order, and the call binds them there. Compiled once per
 * engine and number of values, so a rest parameter (an IN list) gets one
 * statement per length.
 */
export function compiledOnce<V extends unknown[], R>(build: (db: Executor, ...values: V) => Compilable<R>) {
  const byArity = new Map<number, (db: Executor, params: Record<string, unknown>) => Promise<QueryResult<R>>>();
  return (db: Executor, ...values: V): Promise<QueryResult<R>> => {
    let query = byArity.get(values.length);
    if (!query)
      byArity.set(
        values.length,
        (query = prepared<Record<string, unknown>, R>((d, slot) =>
          build(d, ...(values.map((_, i) => slot(String(i))) as V)),
        )),
      );
    // An array is a record of its indexes: value i fills slot "i".
    return query(db, values as unknown as Record<string, unknown>);
  };
}
