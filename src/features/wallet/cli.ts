import type { Command } from 'commander';
import { PARENT_OPTION, requireAccount } from '../../cli/accounts.js';
import { CliError, type CliRunner } from '../../cli/run.js';
import type { BaseContext } from '../../context.js';
import { createWallet } from './service.js';

/** A program name as the operator gives it: trimmed, 1 to 100 characters, no control characters. */
export function programName(raw: string): string {
  const name = String(raw).trim();
  if (name.length < 1 || name.length > 100 || /\p{Cc}/u.test(name)) throw new CliError('--name must be 1 to 100 characters');
  return name;
}

/** The account a program is created for: it must exist and be active. */
export async function requireActiveAccount(ctx: BaseContext, email: string, parentEmail?: string) {
  const account = await requireAccount(ctx, email, parentEmail);
  if (account.status !== 'active') throw new CliError(`the account ${email} is archived`);
  return account;
}

export function walletCommands(program: Command, run: CliRunner): void {
  program
    .command('wallets')
    .description('wallet programs of an account')
    .command('add')
    .description('create a wallet program (and the contact list it owns)')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .requiredOption('--name <name>')
    .option('--app-client <label>', 'shown as wallet_app_client', '')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(o, async (ctx) => {
        const name = programName(o.name);
        const account = await requireActiveAccount(ctx, o.email, o.parent);
        const wallet = await createWallet(ctx, account.id, name, String(o.appClient));
        return { wallet_key: wallet.wallet_key, wallet_name: wallet.name };
      }, (r) => `created wallet "${r.wallet_name}"\nwallet_key: ${r.wallet_key}`),
    );
}
