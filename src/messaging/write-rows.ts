import type { Insertable, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { compiledOnce } from '../db/prepared.js';
import type { CampaignsTable, MessagesTable } from './tables.js';

/**
 * The rows of a send (src/messaging/write.ts): campaigns and messages in
 * multi-row INSERTs, each shape compiled once.
 */

/** Rows per INSERT at most: a power of two under SQLite's bound-parameter limit (32,766) with every column. */
const CHUNK = 512;

const CAMPAIGN_COLUMNS = [
  'account_id',
  'name',
  'channel',
  'source',
  'sandbox',
  'total',
  'scheduled_at',
  'created_at',
  'accepted_by',
] as const;
const MESSAGE_COLUMNS = [
  'account_id',
  'campaign_id',
  'reference',
  'channel',
  'country_code',
  'number',
  'text',
  'sender',
  'flash',
  'sandbox',
  'extra_params',
  'meta',
  'price_units',
  'price_prefix',
  'credit_value',
  'stage',
  'status',
  'dlr_code',
  'carrier',
  'carrier_id',
  'error',
  'scheduled_at',
  'valid_until',
  'traffic_class',
  'created_at',
  'sent_at',
  'dlr_at',
  'claimed_until',
  'claim_token',
] as const;
export type MessageRow = Insertable<MessagesTable>;

/** The rows of a multi-row INSERT from their values, one row after the other in `columns` order. */
const rowsOf = <T>(columns: readonly string[], values: unknown[]) =>
  Array.from(
    { length: values.length / columns.length },
    (_, row) => Object.fromEntries(columns.map((c, i) => [c, values[row * columns.length + i]])) as T,
  );

// The statements of every send, compiled once per row count (see compiledOnce and inPieces).
const insertCampaignRows = compiledOnce((db, ...values: unknown[]) =>
  db.insertInto('campaigns').values(rowsOf<Insertable<CampaignsTable>>(CAMPAIGN_COLUMNS, values)).returning('id'),
);
const insertMessageRows = compiledOnce((db, ...values: unknown[]) =>
  db.insertInto('messages').values(rowsOf<MessageRow>(MESSAGE_COLUMNS, values)).returning(['id', 'reference']),
);

/**
 * Runs `insert` over `rows` in pieces of a power of two rows (CHUNK at most),
 * so that a batch costs neither a Kysely build per row count nor a SQLite
 * statement per row count: a few shapes, each compiled once.
 */
async function inPieces<T, R>(rows: T[], insert: (piece: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < rows.length;) {
    const size = Math.min(CHUNK, 2 ** Math.floor(Math.log2(rows.length - i)));
    out.push(...(await insert(rows.slice(i, i + size))));
    i += size;
  }
  return out;
}

/**
 * The campaigns, an id each in order. The rows of one INSERT are identical
 * (same name, size, schedule): RETURNING does not promise the order of its
 * rows, and among identical rows it does not matter which id goes where.
 */
export async function insertCampaigns(trx: Transaction<Database>, rows: unknown[][]): Promise<number[]> {
  const alike = new Map<string, number[]>();
  rows.forEach((row, i) => {
    const key = JSON.stringify(row);
    const members = alike.get(key);
    if (members) members.push(i);
    else alike.set(key, [i]);
  });
  const ids: number[] = [];
  for (const members of alike.values()) {
    const inserted = await inPieces(members, async (piece) =>
      (await insertCampaignRows(trx, ...piece.flatMap((i) => rows[i]))).rows.map((r) => r.id),
    );
    members.forEach((i, k) => (ids[i] = inserted[k]));
  }
  return ids;
}

/** The message rows, ids by reference. */
export async function insertMessages(trx: Transaction<Database>, rows: MessageRow[]): Promise<Map<string, number>> {
  const inserted = await inPieces(
    rows,
    async (piece) => (await insertMessageRows(trx, ...piece.flatMap((row) => MESSAGE_COLUMNS.map((c) => row[c])))).rows,
  );
  return new Map(inserted.map((r) => [r.reference, r.id]));
}
