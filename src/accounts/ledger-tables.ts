import type { Generated } from 'kysely';

/** What moved a balance: an operator's addition, a payment, a send request, a refund, a transfer within a family, an operator's withdrawal. */
export type LedgerKind = 'credit' | 'payment' | 'send' | 'refund' | 'transfer' | 'adjustment';

/** One movement of an account's balance, written in the transaction that moved it (migration 0049_ledger_reset_links). */
export interface CreditLedgerTable {
  id: Generated<number>;
  account_id: number;
  at: number;
  kind: LedgerKind;
  /** Credit units, signed: what the movement added (negative: took). */
  amount: number;
  /** The balance the movement left, in credit units. */
  balance_after: number;
  reason: string | null;
  /** Who moved it: `cli`, the operator API token's or panel user's name, the account (`account:<id>`) or the system. */
  actor: string;
  /** What it is about: `campaign:<id>` for a send, a message's reference for its refund, the other account of a transfer. */
  reference: string | null;
}

export interface LedgerTables {
  credit_ledger: CreditLedgerTable;
}

declare module '../db/schema.js' {
  interface Database extends LedgerTables {}
}
