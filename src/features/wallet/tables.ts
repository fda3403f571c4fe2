import type { Generated } from 'kysely';

export interface WalletProgramsTable {
  id: Generated<number>;
  account_id: number;
  /** Unguessable public identifier. */
  wallet_key: string;
  name: string;
  app_client: string;
  /** The contact list the program owns (linked_tool 'wallet'). */
  list_id: number;
  created_at: number;
}

/** A contact enrolled in a wallet, with its balance in integer cents (never negative). */
export interface WalletMembersTable {
  id: Generated<number>;
  account_id: number;
  wallet_id: number;
  /** 10 digits. */
  phone: string;
  name: string;
  /** The mirror in the program's contact list. */
  contact_id: number;
  balance_cents: Generated<number>;
  /** Staff user who enrolled the contact. */
  enrolled_by: number;
  created_at: number;
  updated_at: number;
}

/** The ledger: one row per balance movement. */
export interface WalletMovementsTable {
  id: Generated<number>;
  account_id: number;
  wallet_id: number;
  member_id: number;
  kind: 'add' | 'redeem';
  /** Always positive; kind gives the direction. */
  amount_cents: number;
  balance_after_cents: number;
  /** Staff user for /wallet/sale; null for an operator movement (/wallet/balance/update). */
  staff_user_id: number | null;
  source: 'sale' | 'balance_update';
  created_at: number;
}

export interface WalletTables {
  wallet_programs: WalletProgramsTable;
  wallet_members: WalletMembersTable;
  wallet_movements: WalletMovementsTable;
}

declare module '../../db/schema.js' {
  interface Database extends WalletTables {}
}
