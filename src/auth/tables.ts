/**
 * Counters of attempts per key ('email:…', 'ip:…', 'refusals:…'), in the
 * database so every process shares them (reserved by auth/attempts.ts).
 */
export interface AttemptCountersTable {
  key: string;
  /** When the current window ends (epoch ms). */
  expires_at: number;
  /** Attempts reserved in the window. */
  attempts: number;
  /** Of those, the ones still running (reserved, not yet finished). */
  in_flight: number;
}

export interface AuthTables {
  attempt_counters: AttemptCountersTable;
}

declare module '../db/schema.js' {
  interface Database extends AuthTables {}
}
