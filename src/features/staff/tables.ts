import type { Generated } from 'kysely';

/** A tool user (employee) of an account: the spec's "Tool user / employee item". */
export interface StaffUsersTable {
  id: Generated<number>;
  account_id: number;
  type: 'cajero' | 'gerente';
  name: string;
  /** Trimmed, lower-cased name: names are unique regardless of case among active staff. */
  name_key: string;
  /** Returned as usertool_branch. */
  business_name: string;
  /** 10 digits. */
  number: string;
  /** scrypt, random salt (src/lib/passwords.ts). */
  password_hash: string;
  /** scrypt with a per-account secret salt: equal passwords give equal fingerprints, for the uniqueness rule. */
  password_fingerprint: string;
  status: Generated<'active' | 'disabled'>;
  created_at: number;
  disabled_at: number | null;
}

export interface StaffTables {
  staff_users: StaffUsersTable;
}

declare module '../../db/schema.js' {
  interface Database extends StaffTables {}
}
