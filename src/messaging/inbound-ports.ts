/**
 * What carriers hand to the core: receipts, replies and carrier ids, and the sink a connector hands them to. Declared
 * here, on the core's side, so that messaging implements them (carrier-sink.ts) without importing the carrier layer;
 * src/carriers/adapter.ts re-exports them for the kinds.
 */
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
