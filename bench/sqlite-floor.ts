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
 * window 100, in the cheapest statements (one debit of the batch's sum,
 * multi-row INSERTs). No reads, no validation, no protocol: what any durable SMPP
 * server that stores and charges each message must at least do per message.
 * `life` adds what the rest of a message's life writes in the same process
 * with the simulator carrier, per batch of `perCommit` messages, one
 * transaction each as the service commits them: the hand-off (its rows read,
 * marked sent) and the delivery report (marked delivered, one confirmation
 * event each).
 */
export async function sqliteFloor(): Promise<{
  run(count: number, perCommit: number): number;
  life(count: number, perCommit: number): number;
  close(): void;
}> {
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
  const list = (n: number) => Array(n).fill('?').join(', ');
  // A statement per batch size, prepared once: the service's statements are cached too.
  const bySize = (make: (n: number) => string) => {
    const made = new Map<number, SQLite.Statement>();
    return (n: number) => made.get(n) ?? made.set(n, sqlite.prepare(make(n))).get(n)!;
  };
  // The cheapest statements for a batch: one debit of its sum, multi-row INSERTs.
  const campaigns = bySize(
    (n) =>
      `INSERT INTO campaigns (account_id, name, channel, source, sandbox, total, created_at, accepted_by) VALUES
       ${Array(n).fill("(?, 'SMS 2026-01-01 00:00:00', 'sms', 'sms', 0, 1, ?, 'smpp:bench')").join(', ')} RETURNING id`,
  );
  const messages = bySize(
    (n) =>
      `INSERT INTO messages (account_id, campaign_id, reference, channel, country_code, number, text, flash, sandbox,
         meta, price_units, stage, status, created_at, credit_value, claimed_until, claim_token) VALUES
       ${Array(n)
         .fill(
           `(?, ?, ?, 'sms', '52', '5512345678', 'Benchmark message from a customer gateway', 0, 0,
             '{"smpp":{"system_id":"bench","source":""}}', 10000, 0, 'queued', ?, 10000, ?, 'floor')`,
         )
         .join(', ')} RETURNING id`,
  );
  const handed = bySize(
    (n) => `SELECT id, account_id, reference, number, text, sender, meta FROM messages WHERE id IN (${list(n)})`,
  );
  const sent = bySize(
    (n) =>
      `UPDATE messages SET stage = 1, status = 'sent', carrier = 'simulator', sent_at = ? WHERE id IN (${list(n)})`,
  );
  const delivered = bySize(
    (n) => `UPDATE messages SET stage = 2, status = 'delivered', dlr_code = 0, dlr_at = ? WHERE id IN (${list(n)})
            RETURNING id, account_id, reference, number`,
  );
  const events = bySize(
    (n) => `INSERT INTO events (account_id, type, reference, payload, state, created_at, uid)
            VALUES ${Array(n).fill("(?, 'confirmation', ?, ?, 'not_delivered', ?, ?)").join(', ')}`,
  );
  const batch = sqlite.transaction((n: number) => {
    const now = Date.now();
    debit.run(10_000 * n, accountId, 10_000 * n);
    const ids = campaigns(n)
      .all(...Array.from({ length: n }, () => [accountId, now]).flat())
      .map((r) => (r as { id: number }).id);
    return messages(n)
      .all(...ids.flatMap((campaignId) => [accountId, campaignId, timeOrderedId(), now, now + 30_000]))
      .map((r) => (r as { id: number }).id);
  });
  const handOff = sqlite.transaction((ids: number[]) => {
    handed(ids.length).all(...ids);
    sent(ids.length).run(Date.now(), ...ids);
  });
  const report = sqlite.transaction((ids: number[]) => {
    const now = Date.now();
    const closed = delivered(ids.length).all(now, ...ids) as Array<{
      account_id: number;
      reference: string;
      number: string;
    }>;
    events(closed.length).run(
      ...closed.flatMap((m) => [
        m.account_id,
        m.reference,
        JSON.stringify({ reference: m.reference, number: m.number, status: 0, sent_date: now, dlr_date: now }),
        now,
        `msg_${timeOrderedId()}`,
      ]),
    );
  });
  const timed = (count: number, perCommit: number, life: boolean) => {
    const t0 = performance.now();
    for (let done = 0; done < count; done += perCommit) {
      const ids = batch(Math.min(perCommit, count - done));
      if (life) {
        handOff(ids);
        report(ids);
      }
    }
    return (count * 1000) / (performance.now() - t0);
  };
  return {
    /** Messages per second: accepted. */
    run: (count: number, perCommit: number) => timed(count, perCommit, false),
    /** Messages per second: accepted, handed over and reported delivered. */
    life: (count: number, perCommit: number) => timed(count, perCommit, true),
    close() {
      sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
