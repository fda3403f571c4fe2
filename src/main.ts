#!/usr/bin/env node
// First: sizes the thread pool before anything uses it.
import './lib/threadpool.js';
import { Command } from 'commander';
import { loadConfig } from './config.js';
import { accountCommands } from './cli/accounts.js';
import { backupCommand } from './cli/backup.js';
import { runCli } from './cli/run.js';
import { features } from './features/index.js';

const program = new Command('mensajero').description('Mensajero messaging service').showHelpAfterError();

program
  .command('serve')
  .description('run the HTTP API, workers and simulators (what npm start runs)')
  .option('--json', 'accepted for uniformity; the service logs JSON')
  .action(async () => {
    // Loaded on demand: the HTTP server, workers and carriers are only for `serve`.
    const { serve } = await import('./cli/serve.js');
    await serve(loadConfig());
  });

program
  .command('migrate')
  .description('apply pending database migrations')
  .option('--json', 'print one JSON object')
  .action((o) => runCli(o, async () => ({ migrated: true }), () => 'database is migrated'));

accountCommands(program, runCli);
backupCommand(program, runCli);
for (const f of features) f.cli?.(program, runCli);

program.parseAsync(process.argv).catch((err) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
