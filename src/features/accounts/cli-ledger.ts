import type { Command } from 'commander';
import { LEDGER_PAGE_SIZE, ledgerPage } from '../../accounts/index.js';
import { sinceOf } from '../../audit/service.js';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { pageOf, PARENT_OPTION, requireAccount, table } from '../../cli/helpers.js';

const MAX_PAGE = 1_000_000;
/** `accounts ledger --email E [--since 30d] [--page N]`: every movement of the balance, newest first. */
export function ledgerCommand(accounts: Command, run: CliRunner): void {
  accounts
    .command('ledger')
    .description(
      `the credit ledger: every movement of the balance with the balance after it, newest first, ${LEDGER_PAGE_SIZE} a page`,
    )
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option(
      '--since <duration>',
      'only the movements since then: a duration back (24h, 30d) or an ISO 8601 moment; default: all',
    )
    .option('--page <n>', 'the page, from 1', '1')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const page = pageOf(o.page, MAX_PAGE);
          const from = o.since === undefined ? undefined : sinceOf(String(o.since));
          if (from === undefined && o.since !== undefined)
            throw new CliError('--since is 30m, 24h, 30d (up to 6 digits) or an ISO 8601 moment');
          const account = await requireAccount(ctx, o.email, o.parent);
          return { ...(await ledgerPage(ctx.db.kysely, account.id, { from, page })) };
        },
        (r) =>
          table(r.entries, ['at', 'kind', 'amount', 'balance_after', 'reason', 'actor', 'reference']) +
          (r.has_more ? `\n(more: --page ${r.page + 1})` : ''),
      ),
    );
}
