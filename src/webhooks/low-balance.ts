import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { toCredits } from '../accounts/credits.js';
import { claimLowBalanceCrossing } from '../accounts/index.js';
import { formatCompact } from '../lib/time.js';
import { recordEvents } from './record.js';

/**
 * After a debit, inside its transaction: when the balance is now below the
 * account's low-balance threshold and that crossing was not reported, records
 * the `low_balance` event with the balance right after this debit. The flag
 * it sets goes back to 0 only when the balance rises above the threshold
 * (src/accounts/store.ts, adjustCredits), so concurrent debits that cross
 * together produce one event: the first to update the row sets the flag, the
 * others (waiting on its row lock, or after it on SQLite) find it set.
 * `charges`, when one debit paid for several sends (merged single sends, in
 * the order they came), are their amounts: the event then reports the
 * balance right after the send that crossed, as if each had debited alone.
 */
export async function recordLowBalance(
  trx: Transaction<Database>,
  accountId: number,
  charges: number[] = [],
): Promise<void> {
  const { rows } = await claimLowBalanceCrossing(trx, accountId);
  const crossed = rows[0];
  if (!crossed || crossed.low_balance_units === null) return;
  const threshold = Number(crossed.low_balance_units);
  // Walk the merged sends from the balance before their one debit to the first that ended below the threshold.
  let balance = Number(crossed.credits) + charges.reduce((sum, c) => sum + c, 0);
  for (const charge of charges) {
    balance -= charge;
    if (balance < threshold) break;
  }
  await recordEvents(trx, [
    {
      accountId,
      type: 'low_balance',
      reference: '',
      payload: {
        type: 'low_balance',
        credits: String(toCredits(balance)),
        threshold: String(toCredits(Number(crossed.low_balance_units))),
        date: formatCompact(Date.now()),
      },
    },
  ]);
}
