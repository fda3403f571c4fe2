import type { Command } from 'commander';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { PARENT_OPTION, requireAccount } from '../../cli/helpers.js';
import { marginCsv, marginReport, MarginError, type MarginBy } from './service.js';

const BY: MarginBy[] = ['account', 'carrier', 'prefix', 'day'];

/** `reports margins`: revenue, carrier cost and margin of a period. */
export function marginCommands(program: Command, run: CliRunner): void {
  const reports = program.command('reports').description('operator reports');
  reports
    .command('margins')
    .requiredOption('--from <date>', 'first day, YYYY-MM-DD (Mexico City)')
    .requiredOption('--to <date>', 'last day, YYYY-MM-DD (Mexico City), included')
    .option('--email <email>', 'only this account and its sub-accounts')
    .option(...PARENT_OPTION)
    .option('--by <what>', BY.join('|'), 'account')
    .option('--csv', 'the rows as CSV (with --json: in the "csv" field)')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          if (!BY.includes(o.by)) throw new CliError(`--by is one of ${BY.join(', ')}`);
          let accountIds: number[] | undefined;
          if (o.email !== undefined) {
            const account = await requireAccount(ctx, o.email, o.parent);
            const subs = await ctx.db.kysely
              .selectFrom('accounts')
              .select('id')
              .where('parent_id', '=', account.id)
              .execute();
            accountIds = [account.id, ...subs.map((s) => Number(s.id))];
          }
          try {
            const report = await marginReport(ctx, { from: o.from, to: o.to, accountIds, by: o.by });
            return o.csv ? { currency: report.currency, csv: marginCsv(o.by, report.rows) } : report;
          } catch (err) {
            if (err instanceof MarginError) throw new CliError(err.message);
            throw err;
          }
        },
        (r) => ('csv' in r ? String(r.csv) : JSON.stringify(r, null, 2)),
      ),
    );
}
