#!/usr/bin/env node
// Only Node's own modules are imported before the compile cache is on: everything else is compiled after it.
import { enablePrivateCompileCache } from '../lib/compile-cache.js';

// An older Node installs the package with only engine warnings, then crashes without a word (a segfault) where a
// native module loads: every command stops here first, before anything but Node's own modules is loaded. The version
// needs nothing else and still answers. The same minimum as package.json's `engines` (test/e2e/old-node.test.ts).
const MIN_NODE_MAJOR = 22;
if (
  Number(process.versions.node.split('.')[0]) < MIN_NODE_MAJOR &&
  !['-V', '--version'].includes(process.argv[2] ?? '')
) {
  process.stderr.write(
    `error: mensajero needs Node.js ${MIN_NODE_MAJOR} or later (22, 24 or 26); this is Node.js ${process.version} ` +
      `(${process.execPath}). Install a supported Node.js and run the command with it.\n`,
  );
  process.exit(1);
}

// `--env-file FILE` before the command: each file read as systemd reads the unit's EnvironmentFile= (not with shell
// rules, which lose a value with `&` or turn `$$` into a process id), its variables over the environment's as
// EnvironmentFile= is over Environment=, before anything reads the environment.
const { leadingEnvFiles, readEnvironmentFile } = await import('../lib/env-file.js');
const envFiles = leadingEnvFiles(process.argv.slice(2));
for (const file of envFiles.files) {
  try {
    Object.assign(process.env, readEnvironmentFile(file));
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exit(2);
  }
}
/** The command's name: the first argument after the leading --env-file options. */
const commandName = process.argv[2 + envFiles.consumed];

enablePrivateCompileCache();
// Then the thread pool is sized, before anything uses it.
await import('../lib/threadpool.js');
const { Command, InvalidArgumentError } = await import('commander');
const { defaultDatabaseWarning, loadConfig, MAX_WORKERS, UNIT_ENV_FILE } = await import('../config.js');
const { existsSync } = await import('node:fs');
const { cliRunner } = await import('./run.js');
const { CliError } = await import('../cli/runner.js');
const { registerCommands } = await import('./commands.js');
const { packageVersion } = await import('../lib/package.js');

const program = new Command('mensajero')
  .description('Mensajero messaging service')
  .version(packageVersion(), '-V, --version', 'print the version')
  .option(
    '--env-file <file>',
    'before the command: read variables from FILE as systemd reads EnvironmentFile= (over the environment; repeatable)',
  )
  .showHelpAfterError()
  // Usage errors commander reports (a missing or unknown option) are the operator's mistake: exit code 2, as CliError.
  .exitOverride((err) => refused(err.exitCode === 0 ? 0 : 2, err.message));

/** Ends a command that never ran: under --json its one JSON object is the error, on standard output. */
function refused(code: number, message: string): never {
  if (code !== 0 && process.argv.includes('--json'))
    process.stdout.write(JSON.stringify({ error: message.replace(/^error: /, '') }) + '\n');
  process.exit(code);
}

// The command that runs, so that the runner records it in the audit log when it changes something (audit-hook.ts).
let invoked: InstanceType<typeof Command> | undefined;
program.hook('preAction', (_program, actionCommand) => {
  invoked = actionCommand;
  // Read once, before the command: given after it, it would come too late for what read the environment already.
  if (program.getOptionValue('envFile') !== envFiles.files.at(-1)) {
    const message = 'error: --env-file goes before the command: mensajero --env-file FILE <command>';
    process.stderr.write(message + '\n');
    refused(2, message);
  }
  const warning = defaultDatabaseWarning(process.env, existsSync(UNIT_ENV_FILE));
  if (warning) process.stderr.write(`warning: ${warning}\n`);
});
const runCli = cliRunner(() => invoked);

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
    const { serve } = await import('./serve.js');
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
if (!['-V', '--version'].includes(commandName ?? '')) await registerCommands(program, runCli, commandName);

program.parseAsync(process.argv).catch((err) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`error: ${message}\n`);
  // An option value a command refused while reading it (CliError) is a mistake too.
  refused(err instanceof CliError ? 2 : 1, message);
});
