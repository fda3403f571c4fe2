import type { CreateTableBuilder, Kysely } from 'kysely';
import { isPostgres } from '../engine.js';

/** An auto-increment integer primary key `id` on either engine. */
export function withId<T extends string>(
  db: Kysely<any>,
  table: CreateTableBuilder<T, never>,
): CreateTableBuilder<T, 'id'> {
  return isPostgres(db)
    ? table.addColumn('id', 'bigserial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}
