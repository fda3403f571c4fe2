import type { CarrierDriver, Pacer, SubmitOutcome } from '../carriers/driver.js';
import type { Channel, InlineClaim } from './types.js';
import type { Executor } from '../db/engine.js';
import type { PrefixTable } from '../lib/prefix-table.js';
import type { GroupCommit } from './group-commit.js';

/**
 * What the outbound pipeline needs from the services of the process, declared
 * here so that the context names them without importing the modules that
 * build them: src/app/boot.ts builds the carrier registry (carriers/registry.ts)
 * and the hand-off (handoff.ts) and puts them in the context.
 */

/** The driver of a channel and its pace. */
export interface Route {
  driver: CarrierDriver;
  pacer: Pacer;
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
}

export interface DispatchOutcome {
  messageId: number;
  outcome: SubmitOutcome;
}

/** Committed messages of small immediate sends, handed to their carrier right after the commit (handoff.ts). */
export interface HandOff {
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
    handOff: HandOff;
    sharedDispatch: SharedDispatch;
    /** The prefix prices, cached by this process (src/messaging/prices.ts). */
    prices: PriceLookup;
  }
}
