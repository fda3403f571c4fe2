import SQLite from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/engine.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { timeOrderedId } from '../src/lib/ids.js';

/**
 * The durable writes of one accepted submit_sm, issued by raw better-sqlite3
 * on a database of Mensajero's schema (same tables and indexes, same pragmas)
 * and nothing else: the debit, the campaign and the message row with its
 * indexes, `perCommit` messages per transaction as the group commit does at
 * window 100. No reads, no validation, no protocol: what any durable SMPP
 * server that stores and charges each message must at least do per message.
 */
export async function sqliteFloor(): Promise<{ run(count: number, perCommit: number): number; close(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-floor-'));
  const path = join(dir, 'floor.db');
  const db = await openDatabase(`sqlite:${path}`);
  await migrateToLatest(db);
  await db.close();
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  const accountId = Number(
    sqlite
      .prepare(
        "INSERT INTO accounts (email, password_hash, credits, created_at) VALUES ('floor@example.com', 'x', ?, 0)",
      )
      .run(1e15).lastInsertRowid,
  );
  const debit = sqlite.prepare('UPDATE accounts SET credits = credits - ? WHERE id = ? AND credits >= ?');
  const campaign = sqlite.prepare(
    `INSERT INTO campaigns (account_id, name, channel, source, sandbox, total, created_at, accepted_by)
     VALUES (?, 'SMS 2026-01-01 00:00:00', 'sms', 'sms', 0, 1, ?, 'smpp:bench') RETURNING id`,
  );
  const message = sqlite.prepare(
    `INSERT INTO messages (account_id, campaign_id, reference, channel, country_code, number, text, flash, sandbox,
       meta, price_units, stage, status, created_at, credit_value, claimed_until, claim_token)
     VALUES (?, ?, ?, 'sms', '52', '5512345678', 'Benchmark message from a customer gateway', 0, 0,
       '{"smpp":{"system_id":"bench","source":""}}', 10000, 0, 'queued', ?, 10000, ?, 'floor') RETURNING id`,
  );
  const batch = sqlite.transaction((n: number) => {
    for (let i = 0; i < n; i++) {
      const now = Date.now();
      debit.run(10_000, accountId, 10_000);
      const { id } = campaign.get(accountId, now) as { id: number };
      message.get(accountId, id, timeOrderedId(), now, now + 30_000);
    }
  });
  return {
    /** Messages per second. */
    run(count: number, perCommit: number): number {
      const t0 = performance.now();
      for (let done = 0; done < count; done += perCommit) batch(Math.min(perCommit, count - done));
      return (count * 1000) / (performance.now() - t0);
    },
    close() {
      sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
