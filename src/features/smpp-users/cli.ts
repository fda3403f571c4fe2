import type { Command } from 'commander';
import { PARENT_OPTION, requireAccount, table } from '../../cli/helpers.js';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { shownEmail } from '../../accounts/subaccount-email.js';
import { smppPassword, SmppUserProblem, smppUserLimits, systemId } from './schemas.js';
import { addSmppUser, bindViews, kickSmppUser, removeSmppUser, setSmppUser, smppUserSettings } from './service.js';

/** Standard input, first line: the password never appears in the process list or the shell history. */
export async function readStdinLine(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('password: ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
}

/** An SMPP user's settings as printed: a sub-account by the email its holder wrote, not its stored `<parent id> <email>` form. */
const printed = <T extends { email: string }>(settings: T): T => ({ ...settings, email: shownEmail(settings.email) });

/** A problem with what the operator typed is an operator mistake (exit code 2). */
async function operatorInput<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof SmppUserProblem) throw new CliError(err.message);
    throw err;
  }
}

const PASSWORD_OPTION = [
  '--password <source>',
  '`-`: read the password (1 to 8 characters) from standard input',
] as const;

/** The password is read only from standard input (`--password -`), before the runner opens the database. */
async function passwordFrom(source: string | undefined, read: () => Promise<string>): Promise<string | undefined> {
  if (source === undefined) return undefined;
  if (source !== '-') return '\u0000refused';
  return read();
}

function checkedPassword(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (raw === '\u0000refused')
    throw new CliError('--password takes only `-` (the password on standard input), never the password itself');
  return smppPassword(raw);
}

/** `mensajero smpp-users add|list|set|remove|binds|kick` (docs/operators/smpp-server.md). */
export function smppUserCommands(program: Command, run: CliRunner, readPassword = readStdinLine): void {
  const users = program.command('smpp-users').description('SMPP logins of accounts (customers binding to the service)');
  const limitOptions = (c: Command) =>
    c
      .option('--max-binds <n>', 'binds open at once across every process (default 4)')
      .option('--throughput <n>', 'message parts per second across every process, 0 for no cap (default 100)')
      .option('--window <n>', 'deliver_sm left unanswered per bind (default 10)')
      .option('--allow-ip <list>', "CIDR,CIDR or none (default: the account's allow-list)")
      .option(
        '--traffic-class <class>',
        'auto (bulk, or transactional for a priority_flag of 2 or more), transactional or bulk (default auto)',
      )
      .option('--json', 'print one JSON object');

  limitOptions(
    users
      .command('add')
      .description('create an SMPP user for an account')
      .requiredOption('--email <email>')
      .option(...PARENT_OPTION)
      .requiredOption('--system-id <id>')
      .requiredOption(...PASSWORD_OPTION),
  ).action(async (o) => {
    const raw = await passwordFrom(o.password, readPassword);
    await run(o, (ctx) =>
      operatorInput(async () => {
        const input = { systemId: systemId(o.systemId), password: checkedPassword(raw)!, ...smppUserLimits(o) };
        const account = await requireAccount(ctx, o.email, o.parent);
        return { ...printed(await addSmppUser(ctx.db, account, input)) };
      }),
    );
  });

  users
    .command('list')
    .description('SMPP users with their settings (never the password)')
    .option('--email <email>')
    .option(...PARENT_OPTION)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const account = o.email === undefined ? undefined : await requireAccount(ctx, o.email, o.parent);
          return { smpp_users: (await smppUserSettings(ctx.db, account?.id)).map(printed) };
        },
        (r) =>
          table(r.smpp_users, ['system_id', 'email', 'max_binds', 'throughput', 'window', 'traffic_class', 'allow_ip']),
      ),
    );

  limitOptions(
    users
      .command('set')
      .description('change an SMPP user (a new password applies from the next bind)')
      .requiredOption('--system-id <id>')
      .option(...PASSWORD_OPTION),
  ).action(async (o) => {
    const raw = await passwordFrom(o.password, readPassword);
    await run(o, (ctx) =>
      operatorInput(async () => {
        const password = checkedPassword(raw);
        const changes = { ...smppUserLimits(o), ...(password !== undefined ? { password } : {}) };
        return { ...printed(await setSmppUser(ctx.db, systemId(o.systemId), changes)) };
      }),
    );
  });

  const bySystemId = (name: string, description: string) =>
    users.command(name).description(description).option('--json', 'print one JSON object');
  bySystemId('remove', 'delete an SMPP user; its open binds are closed')
    .requiredOption('--system-id <id>')
    .action((o) =>
      run(o, (ctx) => operatorInput(async () => ({ removed: await removeSmppUser(ctx.db, systemId(o.systemId)) }))),
    );
  bySystemId('binds', 'open binds across every process')
    .option('--system-id <id>')
    .action((o) =>
      run(
        o,
        (ctx) =>
          operatorInput(async () => ({
            binds: await bindViews(ctx.db, o.systemId === undefined ? undefined : systemId(o.systemId)),
          })),
        (r) => table(r.binds, ['system_id', 'bind', 'address', 'since', 'submitted', 'delivered']),
      ),
    );
  bySystemId('kick', 'close every open bind of an SMPP user, whichever process holds it')
    .requiredOption('--system-id <id>')
    .action((o) =>
      run(o, (ctx) => operatorInput(async () => ({ closed: await kickSmppUser(ctx.db, systemId(o.systemId)) }))),
    );
}
