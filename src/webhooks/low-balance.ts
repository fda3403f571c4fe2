import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { compiledOnce } from '../db/prepared.js';
import { toCredits } from '../accounts/credits.js';
import { formatCompact } from '../lib/time.js';
import { recordEvents } from './record.js';

/**
 * Marks the crossing when the balance is below the account's threshold and
 * this crossing has no event yet; the balance is read by the same statement.
 */
const claimCrossing = compiledOnce((db, accountId: number) =>
  db
    .updateTable('accounts')
    .set({ low_balance_sent: 1 })
    .where('id', '=', accountId)
    .where('low_balance_sent', '=', 0)
    .where(sql<boolean>`credits < low_balance_units`)
    .returning(['credits', 'low_balance_units']),
);

/**
 * After a debit, inside its transaction: when the balance is now below the
 * account's low-balance threshold and that crossing was not reported, records
 * the `low_balance` event with the balance right after this debit. The flag
 * it sets goes back to 0 only when the balance rises above the threshold
 * (src/accounts/store.ts, adjustCredits), so concurrent debits that cross
 * together produce one event: the first to update the row sets the flag, the
 * others (waiting on its row lock, or after it on SQLite) find it set.
 */
export async function recordLowBalance(trx: Transaction<Database>, accountId: number): Promise<void> {
  const { rows } = await claimCrossing(trx, accountId);
  const crossed = rows[0];
  if (!crossed || crossed.low_balance_units === null) return;
  await recordEvents(trx, [
    {
      accountId,
      type: 'low_balance',
      reference: '',
      payload: {
        type: 'low_balance',
        credits: String(toCredits(Number(crossed.credits))),
        threshold: String(toCredits(Number(crossed.low_balance_units))),
        date: formatCompact(Date.now()),
      },
    },
  ]);
}
