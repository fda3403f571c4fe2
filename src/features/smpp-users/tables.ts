import type { Generated } from 'kysely';

/** A customer's SMPP login: the account it sends for and the limits of its binds. */
export interface SmppUsersTable {
  id: Generated<number>;
  account_id: number;
  system_id: string;
  /** scrypt hash (src/lib/passwords.ts); the password itself is never stored. */
  password_hash: string;
  /** Binds open at once across every process. */
  max_binds: number;
  /** Message parts per second across every process (0: no cap). */
  throughput: number;
  /** deliver_sm left unanswered per bind. */
  window_size: number;
  /** The class of its submits (`auto`: bulk, or transactional when a PDU's priority_flag is 2 or more; migration 0050). */
  traffic_class?: Generated<'auto' | 'transactional' | 'bulk'>;
  /** JSON array of CIDRs, or null: the account's own allow-list applies. */
  allow_ips: string | null;
  created_at: number;
  updated_at: number;
}

/**
 * An open bind: slot 0..max_binds-1 of its user, held by one process while it
 * renews `expires_at`. A bind whose row is gone (kick, remove) or expired
 * (its process died) is closed or free.
 */
export interface SmppBindsTable {
  smpp_user_id: number;
  slot: number;
  holder: string;
  account_id: number;
  mode: 'transmitter' | 'receiver' | 'transceiver';
  address: string;
  since: number;
  expires_at: number;
  submitted: number;
  delivered: number;
}

/**
 * A submit_sm whose response was never written (the bind had dropped):
 * `reference` once its send is committed, null while it still runs.
 * A resubmission of the same PDU by the same user takes it (src/smpp-server/resubmits.ts).
 */
export interface SmppResubmitsTable {
  id: Generated<number>;
  smpp_user_id: number;
  fingerprint: string;
  reference: string | null;
  created_at: number;
}

export interface SmppServerTables {
  smpp_users: SmppUsersTable;
  smpp_binds: SmppBindsTable;
  smpp_resubmits: SmppResubmitsTable;
}

declare module '../../db/schema.js' {
  interface Database extends SmppServerTables {}
}
