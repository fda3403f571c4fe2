import type pg from 'pg';
import type { IndexColumns } from './statement-counter.js';

/** One table's cumulative counters in pg_stat_user_tables, its index scans and its number of indexes. */
export interface PgTableStats {
  ins: number;
  upd: number;
  hot: number;
  del: number;
  /** Index scans over the table's indexes (pg_stat_user_indexes.idx_scan, summed). */
  idxScans: number;
  indexes: number;
}

/** The counters of every table of `schema` but the migrator's, as the statistics collector has them now. */
export async function pgTableStats(client: pg.Client, schema: string): Promise<Map<string, PgTableStats>> {
  const { rows } = await client.query(
    `SELECT t.relname AS table, t.n_tup_ins AS ins, t.n_tup_upd AS upd, t.n_tup_hot_upd AS hot, t.n_tup_del AS del,
       coalesce(sum(i.idx_scan), 0) AS scans, count(i.indexrelid) AS indexes
     FROM pg_stat_user_tables t LEFT JOIN pg_stat_user_indexes i ON i.relid = t.relid
     WHERE t.schemaname = $1 AND t.relname NOT LIKE 'kysely_migration%'
     GROUP BY t.relname, t.n_tup_ins, t.n_tup_upd, t.n_tup_hot_upd, t.n_tup_del`,
    [schema],
  );
  return new Map(
    rows.map((r) => [
      r.table as string,
      {
        ins: Number(r.ins),
        upd: Number(r.upd),
        hot: Number(r.hot),
        del: Number(r.del),
        idxScans: Number(r.scans),
        indexes: Number(r.indexes),
      },
    ]),
  );
}

/** The columns of each index of each table of `schema`, read from pg_index. */
export async function pgIndexColumns(client: pg.Client, schema: string): Promise<IndexColumns> {
  const { rows } = await client.query(
    `SELECT t.relname AS table, i.indexrelid::text AS index, a.attname AS column
     FROM pg_index i
     JOIN pg_class t ON t.oid = i.indrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace
     JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY (i.indkey)
     WHERE n.nspname = $1`,
    [schema],
  );
  const byIndex = new Map<string, { table: string; cols: Set<string> }>();
  for (const r of rows) {
    const e = byIndex.get(r.index) ?? { table: r.table, cols: new Set<string>() };
    e.cols.add(r.column);
    byIndex.set(r.index, e);
  }
  const out: IndexColumns = new Map();
  for (const { table, cols } of byIndex.values()) out.set(table, [...(out.get(table) ?? []), cols]);
  return out;
}
