import type { Channel } from '../messaging/types.js';

/** A message as a carrier driver sees it. */
export interface OutboundMessage {
  id: number;
  reference: string;
  channel: Channel;
  countryCode: string;
  /** Full number with country code, digits only. */
  number: string;
  text: string;
  sender: string | null;
  flash: boolean;
  meta: Record<string, unknown> | null;
  /** The sending account (per-account routes). */
  accountId?: number;
}

/**
 * The carrier's answer to one submitted message. `carrierId` is the carrier's
 * own id when it has one (delivery reports then name it); a permanent refusal
 * is final, a transient one is retried with backoff.
 */
export type SubmitOutcome =
  | { ok: true; carrierId?: string; /** The connector that took it, when the driver routes (default: the driver's name). */ carrier?: string }
  | { ok: false; permanent: boolean; error: string; /** Delivery status of a permanent refusal; default 4 (rejected). */ status?: number; carrier?: string | null };

/**
 * A connection to a carrier. Delivery reports and inbound replies flow back
 * into the core through messaging/delivery.ts (applyDeliveryReports,
 * recordReply), whatever the protocol.
 */
export interface CarrierDriver {
  readonly name: string;
  readonly channels: readonly Channel[];
  /** Dispatch pace for this driver. */
  readonly messagesPerSecond: number;
  /** Messages per submit() call. */
  readonly maxBatch: number;
  submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]>;
}

/** Spreads submissions so a driver never gets more than its messages per second. */
export class Pacer {
  private nextFree = 0;
  constructor(private readonly perSecond: number) {}

  async take(count: number): Promise<void> {
    const now = Date.now();
    const start = Math.max(now, this.nextFree);
    this.nextFree = start + (count * 1000) / this.perSecond;
    if (start > now) await new Promise((r) => setTimeout(r, start - now));
  }
}
