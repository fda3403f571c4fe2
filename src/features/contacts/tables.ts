import type { Generated } from 'kysely';

/** A contact list (the spec's "agenda"). */
export interface ContactListsTable {
  id: Generated<number>;
  account_id: number;
  /** Unguessable public identifier. */
  list_key: string;
  name: string;
  /** The name lower-cased: unique per account among lists without linked_tool, and the sort and search key. */
  name_key: string;
  description: string | null;
  custom_field_1: string | null;
  custom_field_2: string | null;
  custom_field_3: string | null;
  custom_field_4: string | null;
  /** 'wallet' or 'loyalty' when a program owns the list: its contacts then refuse direct changes (contact_17). */
  linked_tool: string | null;
  created_at: number;
}

export interface ContactsTable {
  id: Generated<number>;
  account_id: number;
  list_id: number;
  country_code: string;
  /** Full number with the country code, digits only (12 digits for Mexico). */
  number: string;
  name: string | null;
  email: string | null;
  custom_field_1: string | null;
  custom_field_2: string | null;
  custom_field_3: string | null;
  custom_field_4: string | null;
  /** YYYY-MM-DD. */
  birthday_date: string | null;
  facebook: string | null;
  twitter: string | null;
  linkedin: string | null;
  instagram: string | null;
  street: string | null;
  zip: string | null;
  created_at: number;
  updated_at: number;
}

/** One row per change of a contact, for /contacts/polling/{action}. */
export interface ContactChangesTable {
  id: Generated<number>;
  account_id: number;
  list_id: number;
  contact_id: number;
  action: 'created' | 'updated' | 'deleted';
  /** The contact as it was after the change (before it, for deleted), JSON. */
  snapshot: string;
  created_at: number;
}

export interface ContactTables {
  contact_lists: ContactListsTable;
  contacts: ContactsTable;
  contact_changes: ContactChangesTable;
}

declare module '../../db/schema.js' {
  interface Database extends ContactTables {}
}
