import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupSqlite } from './service.js';

describe('mensajero backup: file mode of the copy', () => {
  let dir: string;
  let umask: number;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mensajero-backup-mode-'));
    umask = process.umask(0o022); // the usual umask, under which SQLite creates files -rw-r--r--
    const db = new SQLite(join(dir, 'source.db'));
    db.exec("create table t (x text); insert into t values ('secret')");
    db.close();
  });
  afterAll(async () => {
    process.umask(umask);
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the copy readable by its owner only (0600), whatever the umask', async () => {
    const copy = join(dir, 'copy.db');
    await backupSqlite(join(dir, 'source.db'), copy);
    // The copy is the temporary file renamed into place: its mode is the one it was written with from the start.
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    const db = new SQLite(copy, { readonly: true });
    expect(db.prepare('select x from t').get()).toEqual({ x: 'secret' });
    db.close();
  });
});
