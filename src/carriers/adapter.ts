import type { Logger } from 'pino';
import type { OutboundMessage, SubmitOutcome } from '../messaging/ports.js';
import type { ConnectorStats } from './status.js';
import type { CarrierSink } from '../messaging/inbound-ports.js';

/** A connector as the manager and the router use it, whatever its kind. */
export interface Connector {
  readonly name: string;
  /** The configuration version it was built from: a newer row rebuilds it. */
  readonly version: number;
  readonly available: boolean;
  /** What `carriers status` shows while it is enabled and built. */
  readonly state: 'bound' | 'connecting';
  readonly stats: ConnectorStats;
  submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]>;
  /**
   * Answers the messages waiting for a place (not written to the carrier) `elsewhere`, now and from now on: this
   * process stops, and another process, or this one's next connector of that name, hands them over.
   */
  refuseWaiting?(): void;
  /** Upkeep of every tick (binds and their leases); `processes` share the binds. */
  tick?(processes: number): Promise<void>;
  /** Releases what it holds (binds after their outstanding responses). */
  close(): Promise<void>;
}

/** A connector's stored configuration: settings checked by its kind's schema, its secret decrypted ('' when none). */
export interface ConnectorConfig<S> {
  name: string;
  version: number;
  settings: S;
  secret: string;
}

/**
 * Bind slots of a connector leased among processes, so the binds of all
 * processes together never exceed the connector's `binds` (coordination-store.ts).
 */
export interface BindLeaseStore {
  /** How long a lease lasts once written: another holder may take the slot after that. */
  readonly leaseMs: number;
  /** Renews the slots `holder` still holds; returns those. */
  renew(carrier: string, holder: string, slots: number[]): Promise<number[]>;
  /** Takes `slot` when it is free or its lease expired; false when another holder has it. */
  take(carrier: string, holder: string, slot: number): Promise<boolean>;
  /** Frees these slots of `holder` (all of them when omitted). */
  release(carrier: string, holder: string, slots?: number[]): Promise<void>;
}

/** A connector's message budget over any sliding second, shared among processes (coordination-store.ts). */
export interface ThroughputStore {
  /**
   * Counts `n` more messages in `bucket` (smpp/throughput.ts: BUCKET_MS each) if that bucket stays within `perBucket`
   * and, with the WINDOW_BUCKETS before it, within `cap`; false when it would not.
   */
  reserve(carrier: string, bucket: number, n: number, cap: number, perBucket: number): Promise<boolean>;
}

/** What connectors of several processes agree on: bind slots and the throughput cap. */
export interface Coordination {
  leases: BindLeaseStore;
  throughput: ThroughputStore;
}

/** What a kind's build() gets besides its configuration (never the whole context). */
export interface ConnectorDeps {
  /** Shared state among processes (bind leases, the throughput cap); what it receives goes to the sink. */
  coordination: Coordination;
  log: Logger;
  /** This service's public address (callbacks a provider is given). */
  publicBaseUrl: string;
  /** This process, as lease holder. */
  holder: string;
  /** Where the connector hands what it receives. */
  sink: CarrierSink;
}

export type {
  Receipt,
  ReceivedReply,
  ReplyPart,
  CarrierSink,
  Rejection,
  ScheduledReport,
  CarrierIds,
  CoreSink,
  CarrierInbox,
} from '../messaging/inbound-ports.js';
