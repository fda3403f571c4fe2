import type { Command } from 'commander';
import { PARENT_OPTION, programName, requireActiveAccount } from '../../cli/helpers.js';
import type { CliRunner } from '../../cli/runner.js';
import { createWallet } from './service.js';

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
      run(
        o,
        async (ctx) => {
          const name = programName(o.name);
          const account = await requireActiveAccount(ctx, o.email, o.parent);
          const wallet = await createWallet(ctx, account.id, name, String(o.appClient));
          return { wallet_key: wallet.wallet_key, wallet_name: wallet.name };
        },
        (r) => `created wallet "${r.wallet_name}"\nwallet_key: ${r.wallet_key}`,
      ),
    );
}
