import type { Command } from 'commander';
import { PARENT_OPTION, programName, requireActiveAccount } from '../../cli/helpers.js';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { createLoyalty, DEFAULT_STAMPS, MAX_STAMPS } from './service.js';

function stampCount(raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(String(raw).trim()) || n < 1 || n > MAX_STAMPS)
    throw new CliError(`--stamps must be an integer from 1 to ${MAX_STAMPS}`);
  return n;
}

export function loyaltyCommands(program: Command, run: CliRunner): void {
  program
    .command('loyalty')
    .description('loyalty-card programs of an account')
    .command('add')
    .description('create a loyalty program (and the contact list it owns)')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .requiredOption('--name <name>')
    .option('--stamps <n>', 'stamps that complete a card', String(DEFAULT_STAMPS))
    .option('--app-client <label>', 'shown as loyalty_app_client', '')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const name = programName(o.name);
          const stamps = stampCount(o.stamps);
          const account = await requireActiveAccount(ctx, o.email, o.parent);
          const loyalty = await createLoyalty(ctx, account.id, name, stamps, String(o.appClient));
          return { loyalty_key: loyalty.loyalty_key, loyalty_name: loyalty.name };
        },
        (r) => `created loyalty program "${r.loyalty_name}"\nloyalty_key: ${r.loyalty_key}`,
      ),
    );
}
