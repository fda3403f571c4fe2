import type { Generated } from 'kysely';

/** A connector: `settings` is JSON (see smpp/settings.ts) without the password, which is `password_enc` (AES-GCM). */
export interface CarriersTable {
  id: Generated<number>;
  name: string;
  type: 'smpp' | 'simulator' | 'whatsapp-cloud' | 'twiml-voice';
  enabled: number;
  settings: string;
  password_enc: string | null;
  /** Bumped by every change: processes rebind a connector whose version moved. */
  version: number;
  created_at: number;
  updated_at: number;
}

/** channel + destination prefix (+ account, 0 for all) → ordered connector names (JSON array). */
export interface CarrierRoutesTable {
  id: Generated<number>;
  channel: string;
  prefix: string;
  account_id: number;
  carriers: string;
  /** priority (ordered failover), least-cost or weighted (src/carriers/strategies.ts). */
  strategy: Generated<string>;
  /** JSON array of integers, one per carrier, for `weighted`; null otherwise. */
  weights: string | null;
  created_at: number;
}

/** Money per message part a connector charges for a destination prefix, in ten-thousandths of COST_CURRENCY. */
export interface CarrierCostsTable {
  id: Generated<number>;
  carrier: string;
  prefix: string;
  cost: number;
}

/**
 * A connector's quality settings and state, shared by every process. Rates are
 * in ten-thousandths (8000 = 0.8). `demoted_at` is set while the connector is
 * demoted (what an operator alert reads); `changed_at` is its last change.
 */
export interface CarrierQualityTable {
  carrier: string;
  min_delivery_rate: number | null;
  window_minutes: Generated<number>;
  min_messages: Generated<number>;
  demoted_at: number | null;
  changed_at: number | null;
  /** The rate of the last evaluation that had enough receipts. */
  delivery_rate: number | null;
}

/** Hand-off answers each connector counted (throttling, refusals, errors), per minute, summed over the processes. */
export interface CarrierEventCountsTable {
  carrier: string;
  /** The start of the minute (epoch ms). */
  minute: number;
  throttled: Generated<number>;
  refused: Generated<number>;
  errors: Generated<number>;
}

/** Bind slot leases: at most `binds` rows per connector are held (unexpired) at any time, across processes. */
export interface CarrierBindsTable {
  carrier: string;
  slot: number;
  holder: string;
  expires_at: number;
}

/** Messages submitted per connector per second, shared by every process (the throughput cap). */
/** A connector's hand-overs per BUCKET_MS bucket, across processes (coordination-store.ts; migration 0050). */
export interface CarrierWindowTable {
  carrier: string;
  bucket: number;
  used: number;
}

export interface CarrierRateTable {
  carrier: string;
  second: number;
  used: number;
}

/** Each process's view of each connector (state, counters as JSON), refreshed every few seconds. */
export interface CarrierProcessStatusTable {
  carrier: string;
  holder: string;
  state: string;
  stats: string;
  updated_at: number;
}

/**
 * Provider webhooks refused (wrong or missing signature, unknown connector,
 * unreadable body), counted: one row per address, source, reason and hour.
 */
export interface ProviderRejectionsTable {
  id: Generated<number>;
  carrier: string;
  reason: string;
  remote_address: string;
  /** The start of the hour counted (epoch ms). */
  hour: number;
  attempts: number;
  /** The first and the last refusal of the row. */
  received_at: number;
  last_at: number;
}

export interface CarrierTables {
  provider_rejections: ProviderRejectionsTable;
  carriers: CarriersTable;
  carrier_routes: CarrierRoutesTable;
  carrier_costs: CarrierCostsTable;
  carrier_quality: CarrierQualityTable;
  carrier_event_counts: CarrierEventCountsTable;
  carrier_binds: CarrierBindsTable;
  carrier_rate: CarrierRateTable;
  carrier_window: CarrierWindowTable;
  carrier_process_status: CarrierProcessStatusTable;
}

declare module '../db/schema.js' {
  interface Database extends CarrierTables {}
}
