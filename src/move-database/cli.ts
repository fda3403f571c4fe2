import type { Command } from 'commander';
import { CliError, type CliRunner } from '../cli/runner.js';
import { moveToPostgres } from './service.js';

export function moveDatabaseCommand(program: Command, run: CliRunner): void {
  program
    .command('move-database')
    .description(
      'copy this SQLite database into an empty PostgreSQL database, in one transaction, and check every table (stop the service first)',
    )
    .requiredOption('--to <url>', 'postgres://user@host:port/database (the password from PGPASSWORD or ~/.pgpass)')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          if (ctx.db.engine !== 'sqlite') throw new CliError('DATABASE_URL must name the SQLite database to move');
          const audit = { actor: 'cli', action: 'move-database', detail: { to: o.to, from: ctx.db.describe } };
          const moved = await moveToPostgres(ctx.config.DATABASE_URL, o.to, audit);
          return { from: ctx.db.describe, ...moved };
        },
        (r) =>
          [
            `moved ${r.from} to ${r.to}: ${r.rows} rows in ${r.tables.length} tables, each counted and checked`,
            ...r.tables.map((t) => `${t.table.padEnd(28)} ${String(t.rows).padStart(10)}  ${t.checksum}`),
            // The URL as given, user and parameters included (r.to names only the host and database).
            `now set DATABASE_URL=${urlToSet(o.to)} and start the service`,
          ].join('\n'),
      ),
    );
}

/** The target URL to put in DATABASE_URL, as given but for a password (the move refuses one anyway). */
function urlToSet(to: string): string {
  const url = new URL(to);
  url.password = '';
  url.searchParams.delete('password');
  return url.toString();
}
