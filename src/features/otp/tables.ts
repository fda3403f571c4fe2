import type { Generated } from 'kysely';

/**
 * One verification per account, country code and phone number (UNIQUE), reused
 * across cycles. `state` is what was last written; `expired` is never stored:
 * a pending or locked row whose `expires_at` has passed reads as expired.
 * `version` grows with every write, so a transition decided on a read applies
 * only if nothing changed since (one conditional UPDATE).
 */
export interface OtpVerificationsTable {
  id: Generated<number>;
  account_id: number;
  country_code: string;
  phone_number: string;
  state: 'none' | 'pending' | 'verified' | 'locked';
  version: number;
  /** Code rounds started so far (created, restarted, rotated). */
  round: number;
  /** HMAC-SHA256 of the code under the OTP secret: what verify compares. */
  code_hash: string | null;
  /** AES-256-GCM copy of the code, only so a resend can send the same code; erased when the round ends. */
  code_enc: string | null;
  code_format: 'numeric' | 'alphanumeric' | 'letters' | null;
  code_length: number | null;
  attempts_remaining: number;
  expires_at: number | null;
  /** When the current code was last sent: the resend cooldown starts here. */
  last_sent_at: number | null;
  channel: 'sms' | 'chatapp' | 'voice' | null;
  created_at: number;
  updated_at: number;
  verified_at: number | null;
  /**
   * When a round last locked with the rotation cooldown (from the number's
   * OTP_LOCKS_BEFORE_COOLDOWN-th lock of the day); kept through a delete so
   * the cooldown cannot be skipped.
   */
  locked_at: Generated<number | null>;
  /** 1 while the current code counts toward the pumping guard (not a code_show test): its verification counts too. */
  pumping_counted: Generated<number>;
}

/** Code rounds started, codes sent and rounds locked per number per Mexico City day, for the top-level account and its sub-accounts together. */
export interface OtpNumberDaysTable {
  root_account_id: number;
  country_code: string;
  phone_number: string;
  day: string;
  rounds: number;
  sends: number;
  locks: Generated<number>;
}

/** Wrong codes typed per account since it exists (the /metrics counter). */
export interface OtpFailureCountsTable {
  account_id: number;
  failures: number;
}

/** One row per new code sent for a number: the per-number hourly limit counts them. */
export interface OtpStartsTable {
  id: Generated<number>;
  account_id: number;
  country_code: string;
  phone_number: string;
  started_at: number;
}

/** Per-account abuse protection; absent or null means off. */
export interface OtpSettingsTable {
  account_id: number;
  /** Comma-separated country codes allowed, or null for any. */
  allowed_countries: string | null;
  /** New codes per phone number per hour, or null for no limit. */
  max_per_number_hour: number | null;
  updated_at: number;
}

/** The pumping guard's counts: new codes and verifications per family, destination prefix and time bucket. */
export interface OtpPrefixCountsTable {
  root_account_id: number;
  /** Country code and OTP_PUMPING_PREFIX_DIGITS national digits ("52551"). */
  prefix: string;
  /** Epoch ms / the bucket length (a twelfth of OTP_PUMPING_WINDOW_SECONDS). */
  bucket: number;
  created: number;
  verified: number;
}

/** A prefix the pumping guard blocked: for one family (its top-level account), or for the deployment (null). */
export interface OtpPrefixBlocksTable {
  id: Generated<number>;
  root_account_id: number | null;
  prefix: string;
  since: number;
  until: number;
  /** The window's counts that decided the block (a deployment block: the sums of the family blocks behind it). */
  created: number;
  verified: number;
}

export interface OtpTables {
  otp_verifications: OtpVerificationsTable;
  otp_starts: OtpStartsTable;
  otp_settings: OtpSettingsTable;
  otp_number_days: OtpNumberDaysTable;
  otp_failure_counts: OtpFailureCountsTable;
  otp_prefix_counts: OtpPrefixCountsTable;
  otp_prefix_blocks: OtpPrefixBlocksTable;
}

declare module '../../db/schema.js' {
  interface Database extends OtpTables {}
}
