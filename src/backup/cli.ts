import type { Command } from 'commander';
import type { CliRunner } from '../cli/runner.js';
import { backupDatabase } from './service.js';

export function backupCommand(program: Command, run: CliRunner): void {
  program
    .command('backup')
    .description(
      'copy the SQLite database to a new file while the service runs (PostgreSQL: use pg_dump, see docs/operators/backups.md)',
    )
    .requiredOption('--to <file>', 'the new file to write')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        (ctx) => backupDatabase(ctx, o.to),
        (r) => `backed up ${r.bytes} bytes to ${r.to}`,
      ),
    );
}
