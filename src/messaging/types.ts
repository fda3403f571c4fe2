import type { Channel } from '../channels.js';
import type { DestinationCaps } from './send-rules.js';

/** The channels of the pipeline, re-exported from src/channels.ts for the modules that import them from here. */
export type { Channel };

/** What produced a message: the report's `type` column and the campaign's origin. */
export type MessageSource = 'sms' | 'chatapp' | 'voice' | 'otp' | 'payment';

/**
 * The order in which a carrier's capacity is spent on a message (src/messaging/traffic.ts): `otp` first, then
 * `transactional`, then `bulk` (which keeps a minimum share).
 */
export type TrafficClass = 'otp' | 'transactional' | 'bulk';

/** A family's or an SMPP user's pinned class; `auto` lets each send decide. */
export type TrafficSetting = 'auto' | 'transactional' | 'bulk';

export interface Recipient {
  /** Country code digits, e.g. '52'. */
  countryCode: string;
  /** Full number with the country code, digits only, e.g. '525512345678'. */
  number: string;
  /** Per-recipient text; defaults to SendRequest.text. */
  text?: string;
  /** Its reference, when the sender names it beforehand (an SMPP submit_multi's message_id); else a new one. */
  reference?: string;
}

export interface SendRequest {
  accountId: number;
  channel: Channel;
  source: MessageSource;
  recipients: Recipient[];
  /** The final text (already validated and, for SMS, transliterated to GSM-7). */
  text: string;
  /** Campaign name; generated when absent. */
  campaignName?: string | null;
  sender?: string | null;
  flash?: boolean;
  /** Validates and records, delivers nothing, charges nothing. */
  sandbox?: boolean;
  /** Epoch ms; dispatch waits until then. Not with sandbox. */
  scheduledAt?: number | null;
  /**
   * Epoch ms; a message not handed over by then closes as expired (status 3) and is refunded. Undefined: the family's
   * default validity, if it set one; null: none.
   */
  validUntil?: number | null;
  /**
   * The class the caller asks for: `otp` for OTP codes, `transactional` for what must go at once (payment links,
   * opt-out confirmations, an SMPP customer's priority_flag), `bulk` for an SMPP user pinned to it; undefined: by the
   * send's size and schedule. A family pinned to a class gets it for everything but `otp`.
   */
  trafficClass?: TrafficClass;
  /** extra_params exactly as the client sent it (a JSON string), echoed in events. */
  extraParams?: string | null;
  /** Channel-specific data stored with each message (JSON-serialisable). */
  meta?: Record<string, unknown> | null;
  /** Overrides the price of one part to every recipient, in credit units (0: free); each message still counts its parts. */
  priceUnits?: number;
  /** Sends even to numbers on the opt-out list: only the confirmation of an opt-out itself. */
  ignoreOptouts?: boolean;
  /**
   * An OTP code in its standard text (no custom message): the only message
   * a family's OTP exemption lets through to an opted-out number. A custom
   * text could carry anything, so it obeys the list like any message.
   */
  standardOtpText?: boolean;
  /** The family's caps on messages to one number per hour, set by the acceptance step (destination-caps.ts); none: not capped. */
  destinationCaps?: DestinationCaps | null;
}

/** A claim taken at insert by a hand-off of this process (send.ts): its token and the end of its lease (epoch ms). */
export interface InlineClaim {
  token: string;
  until: number;
}

export interface SendResult {
  campaignId: number;
  /** In recipient order. */
  references: Array<{ reference: string; number: string }>;
  messageIds: number[];
  /** Credit units charged for the whole request (0 in sandbox). */
  creditUnits: number;
  /** The recipients on the opt-out or the do-not-contact list: recorded with status 10, not charged, not sent. */
  optedOut: string[];
}
