import type { Generated } from 'kysely';
import type { Channel, MessageSource, TrafficClass, TrafficSetting } from './types.js';

export interface CampaignsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  channel: Channel;
  source: MessageSource;
  sandbox: number;
  total: number;
  scheduled_at: number | null;
  created_at: number;
  /** Who accepted the request: `key:<api key id>`, `smpp:<system id>`, `panel`; null: the source says (OTP, replies…). */
  accepted_by?: string | null;
}

/**
 * One row per recipient. `stage` only moves forward: 0 accepted (queued or
 * scheduled), 1 handed to the carrier, 2 final (delivery report, refusal or
 * sandbox). Conditional updates on it make every step idempotent.
 */
export interface MessagesTable {
  id: Generated<number>;
  account_id: number;
  campaign_id: number;
  reference: string;
  channel: Channel;
  country_code: string;
  /** Full number with country code, digits only. */
  number: string;
  text: string;
  sender: string | null;
  flash: number;
  sandbox: number;
  /** The extra_params JSON string exactly as the client sent it. */
  extra_params: string | null;
  /** Channel-specific JSON (chat-app media type and caption, voice template…). */
  meta: string | null;
  price_units: number;
  stage: Generated<number>;
  status: MessageStatus;
  /** Delivery status code 0–12 from the carrier's report. */
  dlr_code: number | null;
  carrier: string | null;
  carrier_id: string | null;
  /** Why its carrier took it: the route's strategy ("least-cost 0.0100", "weighted"), "failover from X" or "probe". */
  route_reason?: string | null;
  /** The final receipt as the carrier wrote it: SMPP `stat`/`err`, a provider's status and error code (bounded). */
  receipt_stat?: string | null;
  receipt_err?: string | null;
  error: string | null;
  scheduled_at: number | null;
  /** Not handed over by then, it closes as expired, status 3 (SMPP validity_period; migration 0038). */
  valid_until?: number | null;
  created_at: number;
  sent_at: number | null;
  dlr_at: number | null;
  /** While a dispatcher submits the message (stage 0): others leave it alone until then (src/messaging/dispatch.ts). */
  claimed_until?: number | null;
  /** The claiming dispatcher's token: only it renews the claim (migration 0014_a). */
  claim_token?: string | null;
  /** The prefix price that priced it; null for a channel or default price (migration 0034). */
  price_prefix?: string | null;
  /** Money per credit in ten-thousandths, in force when it was accepted (null: sandbox). */
  credit_value?: number | null;
  /** What its carrier charges for it (all its parts), in ten-thousandths of COST_CURRENCY, recorded at hand-off (null: no cost known). */
  cost?: number | null;
  /** The carrier cost prefix that priced `cost`. */
  cost_prefix?: string | null;
  /** The parts the connector sent it as (`cost` is the cost per part × parts); null until handed over. */
  parts?: number | null;
  /** 1 when its price went back to the account (closed without being sent). */
  refunded?: Generated<number>;
  /** The order a carrier's line hands it over in (src/messaging/traffic.ts; migration 0050). */
  traffic_class?: Generated<TrafficClass>;
}

export type MessageStatus = 'scheduled' | 'queued' | 'sent' | 'delivered' | 'undelivered' | 'refused' | 'sandbox';

export interface AccountPricesTable {
  account_id: number;
  channel: Channel;
  units: number;
}

/** Credits per message by channel and destination prefix; account_id 0: the deployment's list. */
export interface PricesTable {
  id: Generated<number>;
  account_id: number;
  channel: Channel;
  prefix: string;
  units: number;
}

export interface RepliesTable {
  id: Generated<number>;
  account_id: number;
  /** The message it answers; 0 for a reply an MO route gave the account (route_id). */
  message_id: number;
  number: string;
  text: string;
  received_at: number;
  /** The number it was sent to (our sender, short code or long number), when the carrier said (migration 0046). */
  destination?: string | null;
  /** The MO route that gave it to the account (src/messaging/routed-replies.ts). */
  route_id?: number | null;
}

/** A read-confirmation link of one message (src/messaging/tracking.ts). */
export interface ReadTrackingsTable {
  id: Generated<number>;
  token: string;
  account_id: number;
  message_id: number;
  url: string;
  /** The contact given in read_confirmation.contact, if any. */
  contact_id: number | null;
  reads: Generated<number>;
  created_at: number;
  first_read_at: number | null;
  last_read_at: number | null;
}

/** Sandbox messages per account per Mexico City day (the daily sandbox limit, sms_17). */
export interface SandboxUsageTable {
  account_id: number;
  /** YYYY-MM-DD in Mexico City. */
  day: string;
  messages: Generated<number>;
}

/** A hand-off attempt that did not take the message (refused, throttled, failed over, transient error). */
export interface MessageAttemptsTable {
  id: Generated<number>;
  message_id: number;
  /** The connector that answered; null when none was tried (no route, none up). */
  carrier: string | null;
  at: number;
  /** The carrier's answer code (SMPP command_status `0x58`, an HTTP provider's error code), when it gave one. */
  code: string | null;
  /** What went wrong, at most ATTEMPT_ERROR_MAX characters. */
  error: string;
}

/** A family's traffic settings, on its top account (accounts set --traffic-class, --traffic-weight, --validity-minutes). */
export interface TrafficSettingsTable {
  account_id: number;
  traffic_class: TrafficSetting;
  /** Its share in a carrier's round-robin among the families of one class (1: an equal turn). */
  weight: number;
  /** The default validity of its sends; null: none. */
  validity_minutes: number | null;
}

export interface MessagingTables {
  traffic_settings: TrafficSettingsTable;
  message_attempts: MessageAttemptsTable;
  sandbox_usage: SandboxUsageTable;
  read_trackings: ReadTrackingsTable;
  campaigns: CampaignsTable;
  messages: MessagesTable;
  account_prices: AccountPricesTable;
  prices: PricesTable;
  replies: RepliesTable;
}

declare module '../db/schema.js' {
  interface Database extends MessagingTables {}
}
