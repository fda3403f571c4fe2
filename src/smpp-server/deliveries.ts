import type { Db } from '../db/engine.js';
import type { Logger } from 'pino';
import type { CustomerNotice } from '../messaging/customer-notices.js';
import { deliverSmOf } from './notices.js';
import {
  claimDeliveries,
  deleteDelivered,
  deliverLater,
  dropDeliveriesBefore,
  type WaitingDelivery,
} from '../features/smpp-users/service.js';
import type { CustomerSession } from './session.js';
import type { SmppServerMetrics } from './metrics.js';

type Row = WaitingDelivery;

/** A claimed deliver_sm is this process's for this long; a killed process's claims are taken over after it. */
export const CLAIM_MS = 15_000;
/** A deliver_sm unanswered this long counts as failed (retried). */
export const RESPONSE_TIMEOUT_MS = 10_000;
const MAX_BACKOFF_MS = 5 * 60_000;
const PRUNE_EVERY_MS = 60_000;
/** Acknowledged rows deleted per statement at most (under SQLite's bound-parameter limit). */
const DELETE_CHUNK = 500;

/** Retry after 1 s, 2 s, 4 s… up to 5 minutes. */
const backoff = (attempts: number) => Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, attempts - 1));

export interface PumpHost {
  db: Db;
  log: Logger;
  holder: string;
  ttlHours: number;
  metrics: SmppServerMetrics;
  receivers(): CustomerSession[];
}

/**
 * Sends waiting receipts and replies to this process's receiver binds:
 * per account, as many as the binds' windows have room for, claimed in the
 * database (so two processes never send the same one at once), round robin
 * over the binds. A row is deleted only on deliver_sm_resp 0; otherwise it
 * waits with a back-off, and after SMPP_SERVER_DELIVERY_TTL_HOURS it is dropped.
 * The rows acknowledged within one turn of the event loop are deleted by one
 * statement: until then they stay claimed by this process, so nothing sends
 * them again; a process killed before the delete leaves them claimed, and
 * once the claim lapses they are sent again (a duplicate, never a loss).
 */
export class DeliveryPump {
  private running: Promise<void> | null = null;
  private again = false;
  private lastPrune = 0;
  /** Ids acknowledged (deliver_sm_resp 0) and not deleted yet. */
  private acknowledged: number[] = [];
  private deleting: Promise<void> | null = null;

  constructor(private readonly host: PumpHost) {}

  /** One round now, or one more right after the running one (an answered deliver_sm frees room at once). */
  tick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.round().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        void this.tick().catch((err) => this.host.log.warn({ err }, 'SMPP delivery round failed'));
      }
    });
    return this.running;
  }

  private async round(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now;
      await this.prune(now);
    }
    const byAccount = new Map<number, CustomerSession[]>();
    for (const s of this.host.receivers()) {
      const id = Number(s.bound!.user.account_id);
      byAccount.set(id, [...(byAccount.get(id) ?? []), s]);
    }
    for (const [accountId, sessions] of byAccount) await this.pump(accountId, sessions, now);
  }

  private async pump(accountId: number, sessions: CustomerSession[], now: number): Promise<void> {
    const room = sessions.reduce((n, s) => n + s.room, 0);
    if (room <= 0) return;
    const rows = await this.claim(accountId, room, now);
    let next = 0;
    for (const row of rows) {
      let session: CustomerSession | undefined;
      for (let k = 0; k < sessions.length && !session; k++) {
        const candidate = sessions[(next + k) % sessions.length];
        if (candidate.room > 0) session = candidate;
        next = (next + k + 1) % sessions.length;
      }
      if (!session) {
        await this.retry(row, now);
        continue;
      }
      void this.send(session, row);
    }
  }

  private claim(accountId: number, limit: number, now: number): Promise<Row[]> {
    return claimDeliveries(this.host.db, accountId, limit, this.host.holder, now, now + CLAIM_MS);
  }

  private async send(session: CustomerSession, row: Row): Promise<void> {
    const notice = { kind: row.kind, notice: JSON.parse(row.notice) } as CustomerNotice;
    const status = await session.deliver(deliverSmOf(notice), RESPONSE_TIMEOUT_MS);
    if (status === 0) {
      this.host.metrics.delivered.inc({ system_id: session.bound!.user.system_id, kind: row.kind });
      return this.acknowledge(Number(row.id));
    }
    try {
      await this.retry(row, Date.now());
    } catch (err) {
      this.host.log.warn({ err }, 'SMPP delivery bookkeeping failed: the claim expires and it is sent again');
    }
  }

  /** Queues an acknowledged row for the next batched delete. */
  private acknowledge(id: number): void {
    this.acknowledged.push(id);
    this.startDeleting();
  }

  private startDeleting(): void {
    if (this.deleting || this.acknowledged.length === 0) return;
    this.deleting = this.deleteAcknowledged().finally(() => {
      this.deleting = null;
      this.startDeleting();
    });
  }

  /** Resolves once every row acknowledged so far is deleted (or its delete failed and its claim will lapse). */
  async settled(): Promise<void> {
    while (this.deleting) await this.deleting;
  }

  private async deleteAcknowledged(): Promise<void> {
    while (this.acknowledged.length > 0) {
      // The acknowledgements read in this turn of the event loop join one DELETE.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const ids = this.acknowledged.splice(0, DELETE_CHUNK);
      try {
        await deleteDelivered(this.host.db, ids, this.host.holder);
      } catch (err) {
        this.host.log.warn(
          { err, rows: ids.length },
          'SMPP delivery bookkeeping failed: the claims expire and these are sent again',
        );
      }
      // Their room in the windows is free: one round refills it.
      void this.tick().catch(() => undefined);
    }
  }

  private async retry(row: Row, now: number): Promise<void> {
    await deliverLater(this.host.db, Number(row.id), this.host.holder, now + backoff(Number(row.attempts)));
  }

  /** Rows older than the TTL are dropped, counted and logged. */
  async prune(now = Date.now()): Promise<number> {
    const rows = await dropDeliveriesBefore(this.host.db, now - this.host.ttlHours * 3_600_000);
    for (const r of rows) this.host.metrics.dropped.inc({ kind: r.kind });
    if (rows.length > 0)
      this.host.log.warn(
        { dropped: rows.length, ttl_hours: this.host.ttlHours },
        'SMPP receipts and replies dropped: no receiver bind took them within SMPP_SERVER_DELIVERY_TTL_HOURS',
      );
    return rows.length;
  }
}
