import { Readable } from 'node:stream';
import type { Executor } from '../../db/engine.js';
import { formatLocal } from '../../lib/time.js';
import { contactsAfter } from './store.js';

/** Rows per query: large enough to amortise a round trip, small enough to keep memory flat. */
export const CHUNK_ROWS = 2000;

/**
 * The JSON body `{…envelope, "result": [entries]}` of a list's contacts,
 * written as it is read: one keyset-paginated query per chunk, so memory
 * stays flat however large the list (no cursor needed, on either engine).
 * The listing is not a snapshot: contacts added or removed while it runs may
 * or may not appear.
 */
export function contactsJson(db: Executor, listId: number, envelope: Record<string, unknown>): Readable {
  const head = JSON.stringify({ ...envelope, result: [] }).slice(0, -2);
  async function* chunks() {
    yield head;
    let afterId = 0;
    let first = true;
    const dates = lastValueMemo((ms: number) => formatLocal(ms));
    for (;;) {
      const rows = await contactsAfter(db, listId, afterId, CHUNK_ROWS);
      if (rows.length === 0) break;
      let out = '';
      for (const r of rows) {
        const entry = {
          contact_id: r.id,
          contact_name: r.name ?? '',
          contact_number: r.number,
          contact_email: r.email ?? '',
          contact_creation_date: dates(Math.floor(r.created_at / 1000) * 1000),
        };
        out += (first ? '' : ',') + JSON.stringify(entry);
        first = false;
      }
      yield out;
      afterId = rows[rows.length - 1].id;
      if (rows.length < CHUNK_ROWS) break;
    }
    yield ']}';
  }
  return Readable.from(chunks(), { objectMode: false });
}

/** Contacts imported together share their creation second: format each second once. */
function lastValueMemo<K, V>(fn: (k: K) => V): (k: K) => V {
  let lastKey: K | undefined;
  let lastValue: V | undefined;
  return (k) => {
    if (k !== lastKey) {
      lastKey = k;
      lastValue = fn(k);
    }
    return lastValue as V;
  };
}
