import type { Generated } from 'kysely';

export interface LoyaltyProgramsTable {
  id: Generated<number>;
  account_id: number;
  /** Unguessable public identifier. */
  loyalty_key: string;
  name: string;
  app_client: string;
  /** Stamps that complete a card. */
  stamps_required: number;
  /** The contact list the program owns (linked_tool 'loyalty'). */
  list_id: number;
  created_at: number;
}

export interface LoyaltyMembersTable {
  id: Generated<number>;
  account_id: number;
  program_id: number;
  /** 10 digits. */
  phone: string;
  name: string;
  /** YYYY-MM-DD or null. */
  birthdate: string | null;
  /** The mirror in the program's contact list. */
  contact_id: number;
  /** Stamps on the current card, 0 to stamps_required - 1. */
  stamps: Generated<number>;
  /** Cards completed ever: contact_total_loyalty_completes. */
  completes: Generated<number>;
  /** Rewards earned and not yet redeemed: contact_current_redeem. */
  rewards_available: Generated<number>;
  rewards_redeemed: Generated<number>;
  enrolled_by: number;
  created_at: number;
  updated_at: number;
}

/** One row per stamp or reward redemption, with the staff user who made it. */
export interface LoyaltyMovementsTable {
  id: Generated<number>;
  account_id: number;
  program_id: number;
  member_id: number;
  kind: 'stamp' | 'redeem';
  stamps_after: number;
  /** 1 when this stamp completed a card. */
  card_completed: number;
  staff_user_id: number;
  created_at: number;
}

export interface LoyaltyTables {
  loyalty_programs: LoyaltyProgramsTable;
  loyalty_members: LoyaltyMembersTable;
  loyalty_movements: LoyaltyMovementsTable;
}

declare module '../../db/schema.js' {
  interface Database extends LoyaltyTables {}
}
