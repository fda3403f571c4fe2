#!/usr/bin/env node
// First: sizes the thread pool before anything uses it.
import './lib/threadpool.js';
import { Command, InvalidArgumentError } from 'commander';
import { loadConfig, MAX_WORKERS } from './config.js';
import { runCli } from './cli/run.js';
import { registerCommands } from './cli/commands.js';
import { packageVersion } from './lib/package.js';

const program = new Command('mensajero')
  .description('Mensajero messaging service')
  .version(packageVersion(), '-V, --version', 'print the version')
  .showHelpAfterError();

const workerCount = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_WORKERS)
    throw new InvalidArgumentError(`a whole number from 1 to ${MAX_WORKERS}`);
  return n;
};

program
  .command('serve')
  .description('run the HTTP API, workers and simulators (what npm start runs)')
  .option('--workers <n>', 'processes sharing the port (default WEB_CONCURRENCY, else 1)', workerCount)
  .option('--json', 'accepted for uniformity; the service logs JSON')
  .action(async (o: { workers?: number }) => {
    const config = loadConfig();
    // Loaded on demand: the HTTP server, workers and carriers are only for `serve`.
    const { serve } = await import('./cli/serve.js');
    await serve(config, o.workers ?? config.WEB_CONCURRENCY);
  });

program
  .command('migrate')
  .description('apply pending database migrations')
  .option('--json', 'print one JSON object')
  .action((o) =>
    runCli(
      o,
      async () => ({ migrated: true }),
      () => 'database is migrated',
    ),
  );

// The version needs no command module: loading them all would triple its time.
if (!['-V', '--version'].includes(process.argv[2] ?? '')) await registerCommands(program, runCli, process.argv[2]);

program.parseAsync(process.argv).catch((err) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
