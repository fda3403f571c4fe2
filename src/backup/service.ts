import { closeSync, existsSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { CliError } from '../cli/runner.js';
import type { DbAndConfig } from '../context.js';

/**
 * Copies the SQLite database at `source` to `target` with SQLite's online
 * backup API while other connections (a running service) keep writing. The
 * copy is taken in one backup step, so it is one consistent snapshot (WAL
 * lets writers carry on meanwhile); it goes to a temporary file beside the
 * target, is checked with PRAGMA quick_check, then renamed into place.
 * That temporary file is created readable by its owner only (0600) before
 * SQLite writes to it (SQLite would create it 0644, and its journal takes the
 * database file's mode), so no copy of the data is ever readable by others.
 */
export async function backupSqlite(source: string, target: string): Promise<{ pages: number; bytes: number }> {
  const to = resolve(target);
  if (existsSync(to)) throw new CliError(`${target} exists: choose a new file (a backup never overwrites)`);
  if (!existsSync(dirname(to))) throw new CliError(`the directory of ${target} does not exist`);
  const partial = `${to}.partial-${process.pid}`;
  const db = new SQLite(source, { readonly: true, fileMustExist: true });
  try {
    closeSync(openSync(partial, 'wx', 0o600)); // 'wx': never an existing file; the mode is set before any data
    // The first step only opens the backup; then everything in one step (a larger number than any page count).
    const progress = await db.backup(partial, { progress: () => 0x7fffffff });
    const copy = new SQLite(partial);
    try {
      const check = copy.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`the copy failed its integrity check: ${String(check)}`);
      copy.pragma('journal_mode = DELETE'); // one self-contained file, no -wal beside it
      const pageSize = copy.pragma('page_size', { simple: true }) as number;
      renameSync(partial, to);
      return { pages: progress.totalPages, bytes: progress.totalPages * pageSize };
    } finally {
      copy.close();
    }
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  } finally {
    db.close();
  }
}

/** `backup --to`: the process's own SQLite database (refused on PostgreSQL and in memory) to a new file. */
export async function backupDatabase(ctx: DbAndConfig, target: string) {
  if (ctx.db.engine !== 'sqlite')
    throw new CliError('backup copies SQLite databases; for PostgreSQL use pg_dump (docs/operators/backups.md)');
  const source = ctx.config.DATABASE_URL.slice('sqlite:'.length);
  if (source === '' || source === ':memory:') throw new CliError('an in-memory database has nothing to back up');
  const { pages, bytes } = await backupSqlite(source, target);
  return { to: resolve(target), pages, bytes };
}
