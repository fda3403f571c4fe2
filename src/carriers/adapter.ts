import type { Logger } from 'pino';
import type { OutboundMessage, SubmitOutcome } from '../messaging/ports.js';
import type { ConnectorStats } from './status.js';

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

/** A receipt (delivery report, provider status) naming a message by its carrier id. */
export interface Receipt {
  carrierId: string;
  code: number;
  at: number;
  /** A provider's `read` status: also recorded as a read of the message. */
  read?: boolean;
  /** The receipt as the carrier wrote it (SMPP `stat` and `err`, a provider's status and error code), for the trace. */
  stat?: string | null;
  err?: string | null;
}

/** A customer's message as a connector received it. */
export interface ReceivedReply {
  carrier: string;
  /** The customer's number, digits only. */
  source: string;
  /** Our address it was sent to (a sender, a short code, a Cloud API number id). */
  destination: string;
  text: string;
  at: number;
  /** The carrier id of our message it quotes, when the provider says. */
  quoted?: string;
  /** Accounts the reply belongs to first; omitted: the accounts that registered `destination` as a sender. */
  owners?: number[];
}

/** One part of a concatenated reply (SMPP UDH or sar_* fields). */
export interface ReplyPart {
  carrier: string;
  source: string;
  destination: string;
  reference: number;
  sequence: number;
  total: number;
  text: string;
  at: number;
}

/**
 * Where a connector (and its webhooks) hands what it receives: carrier ids
 * of what it submitted, receipts, replies. Connectors never write to the
 * database; the manager gives each one the sink of its kind (CarrierInbox).
 * Each call resolves once what it was given is durable, so a carrier is
 * answered only after that.
 */
export interface CarrierSink {
  /** Carrier ids of accepted messages (their receipts name them); receipts that came first are applied now. */
  accepted(carrier: string, accepted: Array<{ messageId: number; carrierIds: string[] }>): Promise<void>;
  /** Receipts by carrier id: applied, or kept until their id is recorded. */
  receipts(carrier: string, receipts: Receipt[]): Promise<void>;
  reply(reply: ReceivedReply): Promise<void>;
  /** Keeps one part; the whole text when this part completes it (for one caller only, across processes), else null. */
  replyPart(part: ReplyPart): Promise<string | null>;
  /** True the first time an incoming message id of this connector is seen (providers deliver webhooks again). */
  firstSeen(carrier: string, incomingId: string): Promise<boolean>;
  /** A provider's request refused (bad signature, unknown connector): counted for `carriers rejections`, never its body. */
  rejected(rejection: Rejection): Promise<void>;
  /** Final statuses to report at `at`, durably (the simulator's delivery reports survive a restart). */
  scheduleReports(reports: ScheduledReport[], at: number): Promise<void>;
}

/** A refused provider request: which connector it named, why, and where it came from. */
export interface Rejection {
  carrier: string;
  reason: string;
  remoteAddress: string;
}

/** A message's final status code, reported later. */
export interface ScheduledReport {
  messageId: number;
  code: number;
}

/**
 * How a kind's carrier ids are matched, and where they are kept: SMPP's in
 * smpp_ids (normalised, read in hex and decimal), an HTTP provider's in
 * provider_message_ids (exact). Declared by each kind (kinds.ts).
 */
export interface CarrierIds {
  readonly kind: 'smpp' | 'provider';
  /** The form a waiting receipt's id is stored under. */
  normalise(id: string): string;
  /** The stored forms under which a receipt for a recorded id may be waiting. */
  forms(id: string): string[];
}

/** What the core makes of what connectors receive; the carriers count refused requests themselves. */
export type CoreSink = Omit<CarrierSink, 'rejected'>;

/**
 * The core's side of what connectors receive (messaging/carrier-sink.ts),
 * handed to the carrier registry by src/app/boot.ts.
 */
export interface CarrierInbox {
  /** The sink of connectors whose carrier ids are kept as `ids` say. */
  sink(ids: CarrierIds): CoreSink;
  /** Applies the receipts of `carrier` that were waiting for their carrier id. */
  applyWaiting(ids: CarrierIds, carrier: string): Promise<unknown>;
  /** Housekeeping: carrier ids and receipts kept past their days, reply parts older than a day, receipt counts past two. */
  prune(): Promise<void>;
}
