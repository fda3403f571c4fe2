/** How a number came on the do-not-contact list: added one by one, or from an imported file. */
export type DncSource = 'add' | 'import';

/** A full international number (country code first, digits only) that no account of the deployment sends to. */
export interface DoNotContactTable {
  number: string;
  created_at: number;
  source: DncSource;
}

export interface DncTables {
  do_not_contact: DoNotContactTable;
}

declare module '../../db/schema.js' {
  interface Database extends DncTables {}
}
