import type { Command } from 'commander';
import {
  issuePasswordReset,
  meetsPasswordRules,
  PASSWORD_MAX,
  PASSWORD_MIN,
  RESET_PATH,
  setAccountPassword,
} from '../../accounts/index.js';
import { shownEmail } from '../../accounts/subaccount-email.js';
import type { BaseContext } from '../../context.js';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { PARENT_OPTION, requireAccount } from '../../cli/helpers.js';
import { passwordFrom } from './cli-options.js';

/**
 * `accounts set --email E --password-stdin`: the panel password from standard input (never from the command line),
 * under the panel's rule; every panel session of the account ends.
 */
export async function setPasswordFromStdin(ctx: BaseContext, o: { email: string; parent?: string }) {
  const account = await requireAccount(ctx, o.email, o.parent);
  const password = await passwordFrom({ passwordStdin: true });
  if (!meetsPasswordRules(password))
    throw new CliError(`the password has ${PASSWORD_MIN} to ${PASSWORD_MAX} characters (the panel's rule)`);
  await setAccountPassword(ctx.db, account.id, password);
  return { id: account.id, email: shownEmail(account.email), password_set: true as const };
}

/** `accounts password-reset --email E`: a one-time link that sets the panel password, valid one hour. */
export function passwordResetCommand(accounts: Command, run: CliRunner): void {
  accounts
    .command('password-reset')
    .description('a one-time link (valid 1 hour) where the account sets a new panel password')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const account = await requireAccount(ctx, o.email, o.parent);
          if (account.status !== 'active') throw new CliError(`${o.email} is archived: unarchive it first`);
          const { token, expiresAt } = await issuePasswordReset(ctx.db.kysely, account.id);
          return {
            id: account.id,
            email: shownEmail(account.email),
            reset_url: `${ctx.config.publicBaseUrl}${RESET_PATH}${token}`,
            expires_at: new Date(expiresAt).toISOString(),
          };
        },
        (r) => `reset link for ${r.email} (one use, until ${r.expires_at}):\n${r.reset_url}`,
      ),
    );
}
