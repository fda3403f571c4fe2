import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../db/schema.js';
import { oldFinalMessages } from './retention.js';
import type { MessagesTable } from './tables.js';

/** Messages read per query: the export holds one page in memory, whatever its size. */
const PAGE = 1000;

/** The columns of an exported message, in the order of the CSV's header row. */
export const EXPORT_COLUMNS = [
  'id',
  'reference',
  'account_id',
  'campaign_id',
  'channel',
  'country_code',
  'number',
  'sender',
  'text',
  'status',
  'dlr_code',
  'error',
  'carrier',
  'carrier_id',
  'receipt_stat',
  'receipt_err',
  'price_units',
  'price_prefix',
  'credit_value',
  'cost',
  'cost_prefix',
  'parts',
  'refunded',
  'sandbox',
  'traffic_class',
  'created_at',
  'scheduled_at',
  'sent_at',
  'dlr_at',
] as const;

type Row = Pick<Selectable<MessagesTable>, (typeof EXPORT_COLUMNS)[number]>;
export type ExportFormat = 'csv' | 'jsonl';

/**
 * Writes every message retention would remove before `cutoff` (final, created before it, no webhook event pending)
 * to `out`, page by page in creation order, waiting for `out` to drain: memory stays one page whatever the count.
 * `cell` renders a CSV cell. Answers how many messages it wrote.
 */
export async function exportOldMessages(
  db: Kysely<Database>,
  cutoff: number,
  format: ExportFormat,
  out: Writable,
  cell: (value: string) => string,
): Promise<number> {
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  if (format === 'csv') await write(EXPORT_COLUMNS.join(',') + '\n');
  let count = 0;
  for (let after: { created: number; id: number } | null = null; ;) {
    let query = oldFinalMessages(db, cutoff).select(EXPORT_COLUMNS.map((c) => `m.${c}` as const));
    if (after) {
      const { created, id } = after;
      query = query.where(({ or, and, eb }) =>
        or([eb('m.created_at', '>', created), and([eb('m.created_at', '=', created), eb('m.id', '>', id)])]),
      );
    }
    const rows = (await query.limit(PAGE).execute()) as Row[];
    if (rows.length === 0) return count;
    await write(rows.map((r) => (format === 'csv' ? csvLine(r, cell) : jsonLine(r))).join(''));
    count += rows.length;
    const last = rows[rows.length - 1];
    after = { created: Number(last.created_at), id: Number(last.id) };
  }
}

/** The columns holding numbers (PostgreSQL answers bigint ones as strings): written as numbers. */
const NUMERIC = new Set<string>([
  'id',
  'account_id',
  'campaign_id',
  'dlr_code',
  'price_units',
  'credit_value',
  'cost',
  'parts',
  'refunded',
  'sandbox',
  'created_at',
  'scheduled_at',
  'sent_at',
  'dlr_at',
]);

function value(row: Row, column: (typeof EXPORT_COLUMNS)[number]): string | number | null {
  const v = row[column] as unknown;
  if (v === null || v === undefined) return null;
  return NUMERIC.has(column) ? Number(v) : String(v);
}

function jsonLine(row: Row): string {
  return JSON.stringify(Object.fromEntries(EXPORT_COLUMNS.map((c) => [c, value(row, c)]))) + '\n';
}

function csvLine(row: Row, cell: (value: string) => string): string {
  return (
    EXPORT_COLUMNS.map((c) => {
      const v = value(row, c);
      return v === null ? '' : typeof v === 'number' ? String(v) : cell(v);
    }).join(',') + '\n'
  );
}
