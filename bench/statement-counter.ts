import SQLite from 'better-sqlite3';
import pg from 'pg';

/** Writes of one table counted from the statements that made them. */
export interface TableWrites {
  inserted: number;
  updated: number;
  deleted: number;
  /** Index entries the writes changed, as the engine would (SQLite: only indexes over a column the UPDATE sets). */
  indexEntries: number;
}

/** What the statements of one phase did. */
export interface StatementTally {
  statements: number;
  /** Statements by their first 80 characters (the shape), when BENCH_STATEMENT_TRACE is set. */
  shapes: Map<string, number>;
  tables: Map<string, TableWrites>;
}

/** Columns of each index of each table: `indexes.get(table)` lists one column set per index. */
export type IndexColumns = Map<string, Array<Set<string>>>;

/** Statements that start with this comment are the bench's own and not counted. */
export const BENCH_MARK = '/* bench */';

const TRACE = process.env.BENCH_STATEMENT_TRACE === '1';

const WRITE = /^\s*(insert\s+into|update|delete\s+from)\s+"?(\w+)"?/i;

/** The columns an UPDATE's SET clause (or an upsert's DO UPDATE SET) assigns. */
export function assignedColumns(sql: string): Set<string> {
  const set = /\bset\s+([\s\S]*?)(?:\s+(?:from|where|returning)\b|$)/i.exec(sql);
  const cols = new Set<string>();
  if (!set) return cols;
  for (const m of set[1].matchAll(/(?:^|,)\s*"?(\w+)"?\s*=/g)) cols.add(m[1]);
  return cols;
}

/**
 * Counts, per phase, every statement this process sends and the rows each
 * write statement touched, by table, from the drivers themselves
 * (better-sqlite3's Statement, node-postgres' Client): the bench's own
 * queries go through `exclude` and are not counted.
 */
export class StatementCounter {
  private tally: StatementTally = { statements: 0, shapes: new Map(), tables: new Map() };
  private readonly restore: Array<() => void> = [];

  constructor(
    private readonly indexes: IndexColumns,
    private readonly exclude: (client: unknown) => boolean = () => false,
  ) {}

  /** Returns what was counted since the last call and starts a new phase. */
  take(): StatementTally {
    const t = this.tally;
    this.tally = { statements: 0, shapes: new Map(), tables: new Map() };
    return t;
  }

  install(): void {
    this.wrapSqlite();
    this.wrapPostgres();
  }

  uninstall(): void {
    for (const undo of this.restore.splice(0)) undo();
  }

  private record(sql: string, rows: number): void {
    if (sql.startsWith(BENCH_MARK)) return;
    this.tally.statements++;
    if (TRACE) {
      const shape = sql.replace(/\s+/g, ' ').slice(0, 80);
      this.tally.shapes.set(shape, (this.tally.shapes.get(shape) ?? 0) + 1);
    }
    const m = WRITE.exec(sql);
    if (!m || rows === 0) return;
    const verb = m[1].toLowerCase().split(/\s/)[0];
    const table = m[2];
    const t = this.tally.tables.get(table) ?? { inserted: 0, updated: 0, deleted: 0, indexEntries: 0 };
    this.tally.tables.set(table, t);
    const indexes = this.indexes.get(table) ?? [];
    if (verb === 'update') {
      t.updated += rows;
      const set = assignedColumns(sql);
      t.indexEntries += rows * indexes.filter((cols) => [...cols].some((c) => set.has(c))).length;
    } else {
      if (verb === 'insert') t.inserted += rows;
      else t.deleted += rows;
      t.indexEntries += rows * indexes.length;
    }
  }

  private wrapSqlite(): void {
    const probe = new SQLite(':memory:');
    const proto = Object.getPrototypeOf(probe.prepare('select 1')) as {
      run: (...a: unknown[]) => SQLite.RunResult;
      all: (...a: unknown[]) => unknown[];
    };
    probe.close();
    const { run, all } = proto;
    const record = (sql: string, rows: number) => this.record(sql, rows);
    proto.run = function (this: SQLite.Statement, ...args: unknown[]) {
      const result = run.apply(this, args);
      record(this.source, result.changes);
      return result;
    };
    // A write with RETURNING is read with all(): the rows it returns are the rows it wrote.
    proto.all = function (this: SQLite.Statement, ...args: unknown[]) {
      const rows = all.apply(this, args);
      record(this.source, WRITE.test(this.source) ? rows.length : 0);
      return rows;
    };
    this.restore.push(() => Object.assign(proto, { run, all }));
  }

  private wrapPostgres(): void {
    const original = pg.Client.prototype.query;
    const record = (sql: string, rows: number) => this.record(sql, rows);
    const exclude = this.exclude;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const result = (original as (...a: unknown[]) => unknown).apply(this, args);
      if (exclude(this) || !(result instanceof Promise)) return result;
      const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string })?.text ?? '');
      return result.then((r: pg.QueryResult) => {
        record(text, r?.rowCount ?? 0);
        return r;
      });
    } as typeof original;
    this.restore.push(() => (pg.Client.prototype.query = original));
  }
}
