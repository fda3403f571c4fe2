import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

/**
 * Writes `items` `size` at a time, each chunk in a transaction of its own
 * with a turn of the event loop after its commit, so another tenant's write
 * waits for one chunk at most, never for the whole batch. `written(n)` hears
 * how many are committed after each chunk. Returns the chunks' counts added up.
 */
export async function writeInChunks<T>(
  db: Kysely<Database>,
  items: readonly T[],
  size: number,
  write: (trx: Transaction<Database>, chunk: T[]) => Promise<number>,
  written: (count: number) => void = () => undefined,
): Promise<number> {
  let total = 0;
  for (let i = 0; i < items.length; i += size) {
    const chunk = items.slice(i, i + size);
    total += await db.transaction().execute((trx) => write(trx, chunk));
    written(i + chunk.length);
    await nextTurn();
  }
  return total;
}
