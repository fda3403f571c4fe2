import type { Command } from 'commander';
import { isAccountEmail, normalEmail } from '../text/email.js';
import { CliError, type CliRunner } from '../cli/runner.js';
import { createOperator } from './operators.js';

/** Standard input, whole; the password never appears in the process list or the shell history. */
async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('password: ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `mensajero operators create --email E` with the password on standard input. */
export function operatorCommands(program: Command, run: CliRunner): void {
  const operators = program.command('operators').description('people who sign in to the operator view of the panel');
  operators
    .command('create')
    .description('create an operator; the password is read from standard input (8 to 128 characters)')
    .requiredOption('--email <email>')
    .option('--json', 'print one JSON object')
    .action(async (o) => {
      // Read before the runner opens the database; only the first line counts (a trailing newline is not part of it).
      const password = (await readStdin()).split(/\r?\n/)[0];
      await run(
        o,
        async (ctx) => {
          const email = normalEmail(String(o.email));
          if (!isAccountEmail(email)) throw new CliError(`not a valid email: ${o.email}`);
          if (password.length < 8 || password.length > 128)
            throw new CliError('the password (standard input) must have 8 to 128 characters');
          if (!(await createOperator(ctx, email, password)))
            throw new CliError(`an operator with email ${email} exists`);
          return { email, operator: true };
        },
        (r) => `operator ${r.email} created: sign in at /panel/`,
      );
    });
}
