import { createHash } from 'node:crypto';
import type { Db } from '../db/engine.js';
import type { Logger } from 'pino';
import {
  loadUnanswered,
  recordUnanswered,
  settleUnanswered,
  takeUnanswered,
  type Unanswered,
} from '../features/smpp-users/resubmits.js';
import type { Pdu } from './pdus.js';

/** The fields that make two submit_sm the same message (everything but the sequence number). */
const SAME_MESSAGE = [
  'service_type',
  'source_addr_ton',
  'source_addr_npi',
  'source_addr',
  'dest_addr_ton',
  'dest_addr_npi',
  'destination_addr',
  'esm_class',
  'protocol_id',
  'priority_flag',
  'schedule_delivery_time',
  'validity_period',
  'registered_delivery',
  'data_coding',
  'short_message',
  'message_payload',
  'sar_msg_ref_num',
  'sar_total_segments',
  'sar_segment_seqnum',
] as const;

/** A digest of what the customer asked to send (UDH included: it is in short_message). */
export function fingerprint(pdu: Pdu): string {
  const hash = createHash('sha256');
  for (const field of SAME_MESSAGE) {
    const value = pdu[field] as unknown;
    hash.update(`${field}\u0000`);
    hash.update(Buffer.isBuffer(value) ? value : String(value ?? ''));
    hash.update('\u0000');
  }
  return hash.digest('hex');
}

/** How often, and how long, a resubmission waits for the first send to end. */
const WAIT_EVERY_MS = 50;
const WAIT_FOR_MS = 5_000;

type Running = { pdu: Pdu; marker?: Promise<number | null> };

/**
 * Resubmission of a submit_sm whose response the customer never got, for one
 * session. The rule: only a response the server could not write because
 * the bind had dropped (or was closing) counts as lost. Such a submit_sm is
 * recorded (user, digest of the PDU, the reference of its message); for
 * SMPP_SERVER_RESUBMIT_WINDOW_SECONDS, a submit_sm of the same user with
 * the same digest, on a bind opened after the drop, gets that reference as
 * its message_id and sends nothing. Each record answers one resubmission:
 * two identical messages sent on purpose are two messages, unless the
 * first's answer was lost and the customer never saw it. A response written
 * to a socket that dropped afterwards cannot be told from a delivered one:
 * such a resubmission is a new message.
 */
export class Resubmissions {
  private known: Unanswered[] = [];
  private readonly running = new Set<Running>();

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly windowMs: number,
  ) {}

  /** The bind succeeded: what this user's dropped binds left unanswered (none: nothing more to check). */
  async bound(smppUserId: number): Promise<void> {
    try {
      this.known = await loadUnanswered(this.db, smppUserId, Date.now() - this.windowMs);
    } catch (err) {
      this.log.warn({ err }, 'reading unanswered submit_sm failed: resubmissions on this bind are new messages');
    }
  }

  /**
   * The reference to answer a resubmission with; undefined for a new
   * message; 'busy' when the first send of it still runs after a while.
   */
  async earlier(pdu: Pdu): Promise<string | undefined | 'busy'> {
    if (this.known.length === 0) return undefined;
    const digest = fingerprint(pdu);
    const since = Date.now() - this.windowMs;
    for (const entry of this.known.filter((k) => k.fingerprint === digest && k.createdAt >= since)) {
      for (let waited = 0; ; waited += WAIT_EVERY_MS) {
        const taken = await takeUnanswered(this.db, entry.id);
        if (taken !== 'running') {
          this.known = this.known.filter((k) => k !== entry);
          if (taken !== null) return taken;
          break;
        }
        if (waited >= WAIT_FOR_MS) return 'busy';
        await new Promise((r) => setTimeout(r, WAIT_EVERY_MS));
      }
    }
    return undefined;
  }

  /** A submit_sm starts: until it ends, a drop of the bind records it. */
  started(pdu: Pdu): Running {
    const run: Running = { pdu };
    this.running.add(run);
    return run;
  }

  /** It ended with `reference` (null: refused); `written` false when its response could not be written. */
  async finished(run: Running, smppUserId: number, reference: string | null, written: boolean): Promise<void> {
    this.running.delete(run);
    try {
      if (run.marker) {
        const id = await run.marker;
        if (id !== null) await settleUnanswered(this.db, id, reference);
      } else if (!written && reference !== null)
        await recordUnanswered(this.db, smppUserId, fingerprint(run.pdu), reference);
    } catch (err) {
      this.log.warn({ err }, 'recording an unanswered submit_sm failed: a resubmission of it is a new message');
    }
  }

  /** The bind dropped: every submit_sm still running is recorded now, before a new bind can resubmit it. */
  dropped(smppUserId: number): void {
    for (const run of this.running)
      run.marker = recordUnanswered(this.db, smppUserId, fingerprint(run.pdu), null).catch((err) => {
        this.log.warn({ err }, 'recording an unanswered submit_sm failed: a resubmission of it is a new message');
        return null;
      });
  }
}
