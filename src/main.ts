#!/usr/bin/env node
// First: sizes the thread pool before anything uses it.
import './lib/threadpool.js';
import { Command } from 'commander';
import { loadConfig } from './config.js';
import { accountCommands } from './cli/accounts.js';
import { runCli } from './cli/run.js';
// The command modules only, not the features' routes: a CLI command must not load the server (issue 13).
// Keep in step with the `cli` of the features in src/features/index.ts.
import { smsCommands } from './features/sms/cli.js';
import { chatappCli } from './features/chatapp/cli.js';
import { otpCommands } from './features/otp/cli.js';
import { webhookCommands } from './features/webhooks/cli.js';
import { walletCommands } from './features/wallet/cli.js';
import { loyaltyCommands } from './features/loyalty/cli.js';

const program = new Command('mensajero').description('Mensajero messaging service').showHelpAfterError();

program
  .command('serve')
  .description('run the HTTP API, workers and simulators (what npm start runs)')
  .option('--json', 'accepted for uniformity; the service logs JSON')
  .action(async () => {
    // Loaded on demand: the server and every feature are only for `serve`.
    const { serve } = await import('./cli/serve.js');
    await serve(loadConfig());
  });

program
  .command('migrate')
  .description('apply pending database migrations')
  .option('--json', 'print one JSON object')
  .action((o) => runCli(o, async () => ({ migrated: true }), () => 'database is migrated'));

accountCommands(program, runCli);
for (const commands of [smsCommands, chatappCli, otpCommands, webhookCommands, walletCommands, loyaltyCommands]) commands(program, runCli);

program.parseAsync(process.argv).catch((err) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
