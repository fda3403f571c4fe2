import type { Generated } from 'kysely';

export interface JobsTable {
  id: Generated<number>;
  kind: string;
  payload: string;
  state: Generated<'pending' | 'failed'>;
  run_at: number;
  attempts: Generated<number>;
  max_attempts: number;
  locked_until: number | null;
  locked_by: string | null;
  last_error: string | null;
  unique_key: string | null;
  created_at: number;
}

export interface JobTables {
  jobs: JobsTable;
}

declare module '../db/schema.js' {
  interface Database extends JobTables {}
}
