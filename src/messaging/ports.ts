import type { Channel, InlineClaim, TrafficClass } from './types.js';
import type { Executor } from '../db/engine.js';
import type { PrefixTable } from '../lib/prefix-table.js';
import type { GroupCommit } from './group-commit.js';
import type { SendRulesBook } from './send-rules.js';

/**
 * What the outbound pipeline needs from the services of the process, declared
 * here so that the context names them without importing the modules that
 * build them: src/app/boot.ts builds the carrier registry (carriers/registry.ts)
 * and the inline dispatch (inline-dispatch.ts) and puts them in the context. A carrier driver
 * is declared here too: src/carriers/ implements these and imports nothing else
 * of messaging.
 */

/** The carrier cost in force when a connector took a message: the cost prefix that matched and its amount. */
export interface SubmitCost {
  prefix: string;
  /** Ten-thousandths of COST_CURRENCY per message part. */
  amount: number;
}

/** A carrier's answer that did not take a message: kept for the message trace (message_attempts). */
export interface FailedAttempt {
  /** The connector that answered; null when none could be tried (no route, none up). */
  carrier: string | null;
  at: number;
  /** The carrier's own answer code (SMPP command_status as `0x58`, a provider's error code), when it gave one. */
  code?: string;
  error: string;
}

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
  /**
   * Its place in a carrier's line (carriers/traffic-line.ts): its class, its family (the top account) and that
   * family's weight. Absent: `bulk`, a family of its own, weight 1.
   */
  traffic?: { class: TrafficClass; family: number; weight: number };
  /** Epoch ms: not written to the carrier after this; the driver answers EXPIRED_OUTCOME instead. */
  validUntil?: number | null;
  /**
   * Whether this process still holds the message's claim (src/lib/fence.ts).
   * A driver checks it right before it writes the message to its carrier and,
   * once it is false, answers `{ ok: false, permanent: false }` without
   * writing it: another process may take the message over soon.
   */
  fence?: { readonly valid: boolean };
}

/** The answer of a driver for a message whose fence closed before it was written to the carrier. */
export const FENCED_ERROR = 'not handed over: this process could not renew its claim';

/** Delivery status of a message whose validity ended before it was handed over: 3, expired. */
export const EXPIRED_STATUS = 3;

export const EXPIRED_ERROR = 'not sent: its validity period ended before it could be handed over';

/** A driver's answer for a message whose validity ended while it waited for its turn: closed unsent, refunded. */
export const EXPIRED_OUTCOME: SubmitOutcome = {
  ok: false,
  permanent: true,
  error: EXPIRED_ERROR,
  status: EXPIRED_STATUS,
  carrier: null,
};

/** The outcome of a message this process may no longer hand over, or null when it may. */
export function fencedOut(m: Pick<OutboundMessage, 'fence'>): SubmitOutcome | null {
  return m.fence && !m.fence.valid ? { ok: false, permanent: false, error: FENCED_ERROR } : null;
}

/**
 * The carrier's answer to one submitted message. `carrierId` is the carrier's
 * own id when it has one (delivery reports then name it); a permanent refusal
 * is final, a transient one is retried with backoff.
 *
 * A message written to the carrier with no answer before the connection
 * dropped (an SMPP submit_sm without its submit_sm_resp) is reported as
 * transient (`{ ok: false, permanent: false }`): it is handed over again on
 * the next attempt. That is the one duplicate a driver can cause, the same
 * "in flight" window as a crash (docs/contributors/architecture.md, "Hand-off to carriers").
 */
export type SubmitOutcome =
  | {
      ok: true;
      carrierId?: string;
      /**
       * Its carrier ids were recorded when the carrier acknowledged it (a connector's sink: the id book and the
       * message's `carrier_id`, one transaction): the hand-off's record leaves them. Without it, the hand-off's
       * record writes `carrierId` on the message (a driver with no sink of its own).
       */
      idsRecorded?: boolean;
      /** The connector that took it, when the driver routes (default: the driver's name). */ carrier?: string;
      /** That connector's cost for it when one is set (`carriers costs`): money per part, ten-thousandths. */
      cost?: SubmitCost;
      /** The parts it went as (SMPP segments of a long or UCS-2 text); default 1. */
      parts?: number;
      /** Why that connector (a routing driver's strategy, failover or probe). */
      route?: string;
      /** The answers that did not take it before it was taken (throttles, failovers), oldest first. */
      failed?: FailedAttempt[];
    }
  | {
      ok: false;
      permanent: boolean;
      error: string;
      /** Delivery status of a permanent refusal; default 4 (rejected). */ status?: number;
      carrier?: string | null;
      route?: string;
      /** The carrier's own answer code (SMPP command_status as `0x0b`, a provider's error code), when it gave one. */
      code?: string;
      /**
       * Every answer that did not take it, this one included, oldest first,
       * when the driver knows more than this one (a router's failovers, a
       * connector's throttles); absent: this outcome is its one failed attempt.
       */
      failed?: FailedAttempt[];
      /**
       * Not handed over by this process: the connector it goes to (named here) is bound only in another process.
       * The dispatch leaves it for the process that holds a bind (parked, `parkedFor`) and records no attempt;
       * never a failover.
       */
      elsewhere?: string;
    };

/**
 * The claim token of a message left for the processes bound to `carrier` (an outcome with `elsewhere`): a process
 * holding a bind of that connector takes it over (parked.ts); once its claim runs out, any dispatcher may.
 */
export const parkedFor = (carrier: string) => `bound:${carrier}`;

/** Whether a claim token is a parked message's (never written to a carrier). */
export const isParked = (token: string | null | undefined) => token?.startsWith('bound:') === true;

/**
 * A connection to a carrier. Delivery reports and inbound replies flow back
 * into the core through messaging/delivery.ts (applyDeliveryReports) and
 * messaging/inbound-replies.ts (recordInboundReply), whatever the protocol.
 */
export interface CarrierDriver {
  readonly name: string;
  readonly channels: readonly Channel[];
  /** Dispatch pace for this driver. */
  readonly messagesPerSecond: number;
  /** Messages per submit() call. */
  readonly maxBatch: number;
  /**
   * Hands the batch over; one outcome per message, in order. It may take as
   * long as the carrier needs (pacing, throttling): the dispatcher keeps the
   * messages' claims and the job's lease alive meanwhile. A throw counts as a
   * transient outcome for every message of the batch.
   */
  submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]>;
}

export type { Channel, TrafficClass };

/** Spaces a driver's submissions at its pace (carriers/pacer.ts). */
export interface Pace {
  /** Resolves when `count` more messages may go. */
  take(count: number): Promise<void>;
}

/** The driver of a channel and its pace. */
export interface Route {
  driver: CarrierDriver;
  pacer: Pace;
}

/** The carriers as the dispatcher (dispatch.ts) uses them. */
export interface CarrierDispatch {
  /** The driver that carries a channel now. */
  route(channel: Channel): Route | undefined;
  /**
   * Messages this process is handing over right now. A second dispatcher in
   * the process never submits them too, even if their claim ran out while the
   * process stalled.
   */
  readonly inFlight: Set<number>;
  /** Connectors bound in this process now: the messages other processes left for them (`parkedFor`) are its to hand over. */
  boundHere(): string[];
}

export interface DispatchOutcome {
  messageId: number;
  outcome: SubmitOutcome;
}

/** Committed messages of small immediate sends, handed to their carrier right after the commit (inline-dispatch.ts). */
export interface InlineDispatch {
  /** The claim to insert a send's messages with, so that this hand-off submits them without claiming them again. */
  claim(): InlineClaim;
  /** Hands these committed messages over; `claimed` is the claim they were inserted with, if any. */
  add(campaignId: number, messageIds: number[], claimed?: InlineClaim): void;
}

/** Inline dispatch for senders that must know at once what the carrier answered (OTP), shared by concurrent callers. */
export interface SharedDispatch {
  /** The claim to insert a send's messages with, so that its round submits them without claiming them again. */
  claim(): InlineClaim;
  /** The outcome of each of these messages this round handed over (none for a message claimed elsewhere). */
  dispatch(messageIds: number[], claimed?: InlineClaim): Promise<DispatchOutcome[]>;
}

/** Prefix prices as a send looks them up (prices.ts: the process's PriceBook). */
export interface PriceLookup {
  table(db: Executor): Promise<PrefixTable<number>>;
}

/**
 * The carriers of the process: what the dispatcher uses, plus the members of
 * the carrier layer's own registry, which carriers/registry.ts adds to this
 * interface (declaration merging) so that this module imports nothing of
 * that layer.
 */
export interface ProcessCarriers extends CarrierDispatch {}

declare module '../context.js' {
  /** The pipeline's services in the context (src/context.ts names the foundation's only). */
  interface AppContext {
    carriers: ProcessCarriers;
    /** The group commit of this process's database: concurrent sends share one transaction. */
    groupCommit: GroupCommit;
    inlineDispatch: InlineDispatch;
    sharedDispatch: SharedDispatch;
    /** The prefix prices, cached by this process (src/messaging/prices.ts). */
    prices: PriceLookup;
    /** The families' abuse rules (countries, caps, senders, content filters), cached by this process (send-rules.ts). */
    sendRules: SendRulesBook;
  }
}
