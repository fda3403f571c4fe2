import type { Command } from 'commander';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { PARENT_OPTION, requireAccount, table } from '../../cli/helpers.js';
import { addFilter, FilterError, listFilters, removeFilter } from './service.js';

/** A refused input is an operator mistake: a one-line error and exit code 2. */
async function asOperatorError<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (err) {
    throw err instanceof FilterError ? new CliError(err.message) : err;
  }
}

/** `filters add|list|remove`: the content filters every send's text is checked against. */
export function filterCommands(program: Command, run: CliRunner): void {
  const filters = program
    .command('filters')
    .description('content filters: words, phrases and URL domains that block or flag sends');
  filters
    .command('add')
    .requiredOption('--action <block|flag>', 'block: refused (sms_46), not charged; flag: sent, recorded for review')
    .option('--email <email>', 'the account whose family it covers (default: every account)')
    .option(...PARENT_OPTION)
    .option('--word <text>', 'a word or phrase, matched as whole words after folding accents, width and case')
    .option('--domain <domain>', 'a URL domain, matched with its subdomains (bbva-mx.example)')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const account = o.email === undefined ? null : await requireAccount(ctx, o.email, o.parent);
          const added = await asOperatorError(() =>
            addFilter(ctx.db, {
              action: o.action,
              account: account && { id: Number(account.id), email: account.email },
              word: o.word,
              domain: o.domain,
            }),
          );
          return { ...added };
        },
        (r) =>
          `filter ${r.id}: ${r.action} ${r.word !== null ? `word "${r.word}"` : `domain ${r.domain}`} (${r.email ?? 'every account'})`,
      ),
    );
  filters
    .command('list')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => ({ ...(await listFilters(ctx.db)) }),
        (r) =>
          r.filters.length === 0
            ? '(no filters)'
            : table(r.filters, ['id', 'action', 'scope', 'email', 'word', 'domain']),
      ),
    );
  filters
    .command('remove')
    .requiredOption('--id <n>', 'the filter (filters list)')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          if (!/^\d{1,15}$/.test(String(o.id))) throw new CliError('--id is the number filters list shows');
          return removeFilter(ctx.db, Number(o.id));
        },
        (r) => (r.removed ? `filter ${o.id} removed` : `no filter ${o.id}`),
      ),
    );
}
