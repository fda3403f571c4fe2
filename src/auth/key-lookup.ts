import { findAccountByKey, findAccountsByKeyHashes, type AuthenticatedAccount } from '../accounts/store.js';
import { apiKeyHash } from '../accounts/keys.js';
import type { Db } from '../db/engine.js';
import { perTurn } from '../lib/per-turn.js';

/** Keys remembered; beyond it the oldest is forgotten (a bound, not a tuning knob: a miss only costs the query). */
const MAX_KEYS = 1000;

interface Remembered {
  account: AuthenticatedAccount;
  version: number;
}

/**
 * The caller behind an API key, read on every request, never older than the
 * database. On a SQLite file the row read for a key is reused while the
 * file's data_version is the one seen before that read: any commit by any
 * connection or process (a key rotated with the CLI, a balance changed, an
 * account archived) changes it, and the next request reads the row again.
 * So the answer is always what the query would give now; only unchanged
 * databases skip the query. Unknown keys are never remembered.
 */
export function keyLookup(db: Db): (key: string) => Promise<AuthenticatedAccount | undefined> {
  const dataVersion = db.dataVersion;
  if (db.engine === 'postgres') return lookupsOfOneTurn(db);
  if (!dataVersion) return (key) => findAccountByKey(db, key);
  const remembered = new Map<string, Remembered>();
  return async (key) => {
    // Read before the row: a commit in between makes the row newer than its version, never older.
    const version = dataVersion();
    const hit = remembered.get(key);
    if (hit && hit.version === version) return hit.account;
    const account = await findAccountByKey(db, key);
    if (!account) {
      remembered.delete(key);
      return undefined;
    }
    if (!hit && remembered.size >= MAX_KEYS) remembered.delete(remembered.keys().next().value!);
    // Shared by the requests that reuse it: frozen, so that none can change what another sees.
    remembered.set(key, { account: Object.freeze(account), version });
    return account;
  };
}

/**
 * PostgreSQL: the keys of the requests that arrive in one turn of the event
 * loop are read by one query, started once every one of those requests has
 * arrived: each answer is what the database held after its request came, as
 * a query of its own would give, for one round trip instead of one each.
 */
function lookupsOfOneTurn(db: Db): (key: string) => Promise<AuthenticatedAccount | undefined> {
  const byHash = perTurn(async (hashes: string[]) => {
    const found = await findAccountsByKeyHashes(db, hashes);
    // Shared by the requests of the same key: frozen, so that none can change what another sees.
    for (const account of found.values()) Object.freeze(account);
    return found;
  });
  return (key) => byHash(apiKeyHash(key));
}
