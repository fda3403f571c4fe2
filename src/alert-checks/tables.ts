/** The condition checker's own tables: what it watches before an episode opens, and its lease. */

/** A condition seen but not yet an episode: `carrier:<name>` → not bound since. */
export interface AlertWatchesTable {
  key: string;
  since: number;
}

/** The evaluator's lease: one process of the deployment checks the conditions at a time. */
export interface AlertLeasesTable {
  name: string;
  holder: string;
  expires_at: number;
  /** When the holder last finished a check (a connector seen unbound was bound at most this long ago). */
  checked_at: number | null;
}

export interface AlertCheckTables {
  alert_watches: AlertWatchesTable;
  alert_leases: AlertLeasesTable;
}

declare module '../db/schema.js' {
  interface Database extends AlertCheckTables {}
}
