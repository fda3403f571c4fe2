import {
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

/**
 * Kysely's PostgreSQL introspector, which its Migrator runs on every start
 * (every CLI command), reads the tables of EVERY schema and calls functions
 * such as has_schema_privilege on each schema's name: when another schema of
 * the database is dropped meanwhile (another Mensajero's, a test's), the query
 * fails with `schema "…" does not exist` and the migration with it. This one
 * reads the current schema only (the one in search_path that Mensajero uses).
 */
export class CurrentSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<any>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{
      name: string;
    }>`select nspname as name from pg_catalog.pg_namespace where nspname = current_schema()`.execute(this.db);
    return rows;
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await sql<{
      schema: string;
      table: string;
      kind: string;
      column: string;
      type: string;
      not_null: boolean;
      has_default: boolean;
    }>`
      select n.nspname as schema, c.relname as table, c.relkind as kind, a.attname as column,
             t.typname as type, a.attnotnull as not_null, a.atthasdef as has_default
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      join pg_catalog.pg_type t on t.oid = a.atttypid
      where n.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
      order by c.relname, a.attnum`.execute(this.db);
    const tables = new Map<string, TableMetadata>();
    for (const r of rows) {
      if (!options.withInternalKyselyTables && (r.table === 'kysely_migration' || r.table === 'kysely_migration_lock'))
        continue;
      let table = tables.get(r.table);
      if (!table)
        tables.set(r.table, (table = { name: r.table, schema: r.schema, isView: r.kind === 'v', columns: [] }));
      table.columns.push({
        name: r.column,
        dataType: r.type,
        isNullable: !r.not_null,
        hasDefaultValue: r.has_default,
        isAutoIncrementing: false,
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}
