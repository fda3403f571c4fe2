import type { AuditInput } from '../audit/service.js';
import { CliError } from '../cli/runner.js';
import { openDatabase } from '../db/engine.js';
import { hasPasswordParameter } from '../text/url-secrets.js';
import { moveDatabase, MoveRefused, type MovedTable } from './move.js';

/**
 * The move of `mensajero move-database`: from the SQLite file of `sqliteUrl` into the PostgreSQL database at `to`.
 * A password in `to` (`user:pw@` or `?password=`) is refused: a command line shows in the process list (PGPASSWORD
 * or ~/.pgpass instead).
 */
export async function moveToPostgres(
  sqliteUrl: string,
  to: string,
  audit?: AuditInput,
): Promise<{ to: string; rows: number; tables: MovedTable[] }> {
  const file = sqliteUrl.slice('sqlite:'.length);
  if (file === '' || file === ':memory:') throw new CliError('an in-memory database has nothing to move');
  let url: URL;
  try {
    url = new URL(to);
  } catch {
    throw new CliError('--to must be a postgres:// URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new CliError('--to must be a postgres:// URL');
  // libpq reads a password from the user part and from ?password= alike: both would show in the process list.
  if (url.password !== '' || hasPasswordParameter(url))
    throw new CliError(
      '--to carries a password, which would show in the process list: give it in PGPASSWORD or ~/.pgpass instead',
    );
  const target = await openDatabase(to);
  try {
    const tables = await moveDatabase(file, target, audit);
    return { to: target.describe, rows: tables.reduce((n, t) => n + t.rows, 0), tables };
  } catch (err) {
    if (err instanceof MoveRefused) throw new CliError(err.message);
    throw err;
  } finally {
    await target.close();
  }
}
