import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import {
  CompiledQuery,
  Kysely,
  sql,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Driver,
  type SqliteDialectConfig,
  type Transaction,
} from 'kysely';
import type { Database } from './schema.js';
import { InlineLimitPlugin } from './inline-limit.js';
import { prepareRepeatedStatements } from './pg-prepared.js';
import { InListSizesPlugin } from './in-list-sizes.js';
import { CurrentSchemaIntrospector } from './pg-introspector.js';

export type Engine = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  engine: Engine;
  /** A name for logs: the SQLite path or the PostgreSQL host/database, never the password. */
  describe: string;
  /**
   * SQLite files only: reads one row synchronously on a second, read-only
   * connection, which sees committed data only and skips Kysely's connection
   * mutex. For lookups on every request (the API key); see bench/RESULTS.md.
   */
  readRow?: <T>(sqlText: string, parameters: readonly unknown[]) => T | undefined;
  /**
   * SQLite files only: PRAGMA data_version on the read connection. It changes
   * whenever any other connection, in this process or another, commits a
   * change to the file: a row read at an unchanged version is still current.
   */
  dataVersion?: () => number;
  /**
   * Resolves when the database answers `select 1` within `timeoutMs`, rejects
   * otherwise. On PostgreSQL it uses a connection of its own, so a pool whose
   * connections all wait (on locks, on a slow query) does not read as a lost
   * database.
   */
  ping(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export type Executor = Kysely<Database> | Transaction<Database>;

// The driver of the engine in use only is loaded: each costs start-up time.
async function loadPg(): Promise<typeof pg> {
  const { default: driver } = await import('pg');
  // BIGINT columns hold epoch milliseconds and credit units, both far below 2^53.
  driver.types.setTypeParser(20, (v) => Number(v));
  return driver;
}

export interface OpenOptions {
  /** PostgreSQL schema to use (created if missing); tests give each suite its own. */
  pgSchema?: string;
  poolSize?: number;
  /** PostgreSQL only: how long anything may wait on the server or the network (none when absent). */
  limits?: PgLimits;
  /** PostgreSQL only: connections prepare the statements they run repeatedly (pg-prepared.ts). */
  preparedStatements?: boolean;
  /** SQLite only: open the file only if it exists (NoDatabaseFile otherwise) instead of creating it: `doctor`. */
  existingOnly?: boolean;
}

/** A SQLite file that is not there, opened with `existingOnly`. */
export class NoDatabaseFile extends Error {
  constructor(readonly file: string) {
    super(`${file} does not exist`);
  }
}

/**
 * What keeps a process from waiting on a silent peer, and the server from
 * keeping a silent process's locks (docs/operators/postgresql-and-processes.md).
 * Milliseconds; 0 turns one off.
 */
export interface PgLimits {
  /** Server side: a statement running longer is cancelled. The client gives up `connectMs` after it. */
  statementMs: number;
  /** Server side: a statement waiting longer for a lock fails. */
  lockMs: number;
  /** Server side: a session idle this long inside a transaction is ended, and its locks released. */
  idleInTransactionMs: number;
  /** Client side: opening a connection, or waiting for one of the pool's. */
  connectMs: number;
  /** Client side: TCP keepalive probes after this much silence on a connection. */
  keepAliveMs: number;
}

export async function openDatabase(url: string, opts: OpenOptions = {}): Promise<Db> {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length), opts.existingOnly);
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return openPostgres(url, opts);
  throw new Error(`DATABASE_URL must start with sqlite: or postgres:// (got ${url.split(':')[0]}:)`);
}

async function openSqlite(path: string, existingOnly = false): Promise<Db> {
  const { default: SQLite } = await import('better-sqlite3');
  const file = path === '' ? ':memory:' : path;
  if (file !== ':memory:' && existingOnly && !existsSync(file)) throw new NoDatabaseFile(file);
  if (file !== ':memory:') {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Created readable by the owner only; SQLite gives its -wal and -shm files the database file's mode.
    closeSync(openSync(file, 'a', 0o600));
  }
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const kysely = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }),
    plugins: [new InlineLimitPlugin(), new InListSizesPlugin()],
  });
  const ping = async () => void (await sql`select 1`.execute(kysely));
  if (file === ':memory:')
    return { kysely, engine: 'sqlite', describe: 'sqlite::memory:', ping, close: () => kysely.destroy() };
  const reader = withStatementCache(new SQLite(file, { readonly: true, fileMustExist: true }));
  const dataVersion = reader.prepare('PRAGMA data_version').pluck();
  return {
    kysely,
    engine: 'sqlite',
    describe: `sqlite:${file}`,
    readRow: <T>(sqlText: string, parameters: readonly unknown[]) =>
      reader.prepare(sqlText).get(...parameters) as T | undefined,
    dataVersion: () => dataVersion.get() as number,
    ping,
    close: async () => {
      reader.close();
      await kysely.destroy();
    },
  };
}

/**
 * Transactions take SQLite's write lock as they begin (BEGIN IMMEDIATE), so a
 * transaction that waits for another process's write waits (busy_timeout)
 * instead of failing: a deferred one that read first and then writes gets
 * SQLITE_BUSY at once when another process wrote meanwhile, and its request
 * answered 500. Within a process Kysely runs one query at a time anyway.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }
}

/**
 * Kysely prepares every statement anew, which costs more than running it.
 * Statements are reused by SQL text instead (bounded). Kysely holds the one
 * connection for a whole query or stream, so a cached statement is never
 * used by two queries at once.
 */
function withStatementCache(sqlite: SQLite.Database, max = 500) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sqlText: string) {
      let stmt = cache.get(sqlText);
      if (!stmt) {
        stmt = sqlite.prepare(sqlText);
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
        cache.set(sqlText, stmt);
      }
      return stmt;
    },
  };
}

/** PostgresDialect whose introspection (the migrator's) sees the current schema only: see CurrentSchemaIntrospector. */
class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}

async function openPostgres(url: string, opts: OpenOptions): Promise<Db> {
  const schema = opts.pgSchema;
  if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  const pg = await loadPg();
  if (schema) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await admin.end();
    }
  }
  const limits = opts.limits;
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
    ...(limits ? poolLimits(pg, limits) : {}),
  });
  // A connection the server or the network closed (a restart, an idle-in-transaction time-out) errors the query
  // that used it, which its caller handles; the client's own 'error' event, unheard, would end the process.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  if (opts.preparedStatements) pool.on('connect', prepareRepeatedStatements);
  const kysely = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
  const u = new URL(url);
  const pinger = new Pinger(pg, url);
  return {
    kysely,
    engine: 'postgres',
    describe: `postgres://${u.host}${u.pathname}`,
    ping: (timeoutMs) => pinger.ping(timeoutMs),
    close: async () => {
      pinger.close();
      await kysely.destroy();
    },
  };
}

/** `select 1` on a connection of its own, dropped and opened anew whenever it fails or is late. */
class Pinger {
  private client: pg.Client | null = null;
  constructor(
    private readonly driver: typeof pg,
    private readonly url: string,
  ) {}

  async ping(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      // A busy event loop runs due timers before reading sockets: the answer may be waiting. Read them first.
      const expire = () => setImmediate(() => reject(new Error(`no answer within ${timeoutMs} ms`)));
      timer = setTimeout(expire, timeoutMs);
    });
    try {
      await Promise.race([this.query(timeoutMs), late]);
    } catch (err) {
      this.close();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private async query(timeoutMs: number): Promise<void> {
    if (!this.client) {
      const client = new this.driver.Client({ connectionString: this.url, connectionTimeoutMillis: timeoutMs });
      client.on('error', () => this.close());
      this.client = client;
      await client.connect();
    }
    await this.client.query('select 1');
  }

  close(): void {
    const client = this.client;
    this.client = null;
    // end() would wait for a silent server: the socket is destroyed instead.
    (client as unknown as { connection?: { stream?: { destroy(): void } } } | null)?.connection?.stream?.destroy();
  }
}

/** pg.Pool settings for `limits`: the server's timeouts for each session, keepalives, and a client that gives up. */
function poolLimits(driver: typeof pg, limits: PgLimits) {
  const giveUpMs = limits.statementMs > 0 ? limits.statementMs + Math.max(limits.connectMs, 1000) : 0;
  return {
    statement_timeout: limits.statementMs,
    lock_timeout: limits.lockMs,
    idle_in_transaction_session_timeout: limits.idleInTransactionMs,
    connectionTimeoutMillis: limits.connectMs,
    keepAlive: limits.keepAliveMs > 0,
    keepAliveInitialDelayMillis: limits.keepAliveMs,
    ...(giveUpMs > 0 ? { Client: clientGivingUpAfter(driver, giveUpMs) } : {}),
  };
}

/**
 * A pg client that destroys its connection when a query has had no answer
 * for `ms`: a server or network that fell silent (no reset) would otherwise
 * keep the query, and the pool's connection, waiting for TCP's own time-out
 * (many minutes). The pool then drops the connection and opens a new one.
 */
function clientGivingUpAfter(driver: typeof pg, ms: number): typeof pg.Client {
  return class extends driver.Client {
    override query(...args: unknown[]): any {
      const result = (super.query as (...a: unknown[]) => unknown)(...args);
      if (!(result instanceof Promise)) return result;
      const timer = setTimeout(() => {
        const stream = (this as unknown as { connection?: { stream?: { destroy(e?: Error): void } } }).connection
          ?.stream;
        stream?.destroy(new Error(`PostgreSQL gave no answer within ${ms} ms`));
      }, ms);
      timer.unref();
      return result.finally(() => clearTimeout(timer));
    }
  } as typeof pg.Client;
}

/** For migrations, which receive a bare Kysely instance. */
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Rows touched by an UPDATE/DELETE, as a number. */
export function affected(
  result:
    { numUpdatedRows?: bigint; numDeletedRows?: bigint } | Array<{ numUpdatedRows?: bigint; numDeletedRows?: bigint }>,
): number {
  const r = Array.isArray(result) ? result[0] : result;
  return Number(r?.numUpdatedRows ?? r?.numDeletedRows ?? 0n);
}

/** A UNIQUE constraint refused the write (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
