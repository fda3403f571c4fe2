import type { Command } from 'commander';
import { subaccountIds } from '../../accounts/index.js';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { PARENT_OPTION, requireAccount, table } from '../../cli/helpers.js';
import { marginCsv, marginFields, marginReport, MarginError, type MarginBy, type MarginRow } from './margins.js';

const BY: MarginBy[] = ['account', 'carrier', 'prefix', 'day'];

type Report = { currency: string; covers_from?: string; rows: MarginRow[]; totals: MarginRow };

/**
 * The report without --json: its rows as a table with the totals last, in the
 * currency; a warning under it when carriers took messages with no cost known
 * (their cost is missing from `cost`, so `margin` is too high).
 */
export function marginsText(r: Report, by: MarginBy = 'account'): string {
  const rows = [...r.rows, ...(r.rows.length > 0 ? [{ ...r.totals, [by]: 'total' }] : [])];
  const lines = [table(rows, marginFields(by)), `(${r.currency})`];
  if (r.covers_from !== undefined) lines.push(coversNote(r.covers_from));
  const unknown = r.totals.cost_unknown;
  if (unknown > 0)
    lines.push(
      `warning: ${unknown} messages were handed to a carrier with no cost known for them: their cost is not in "cost" and the margin is too high (set it with carriers costs set)`,
    );
  return lines.join('\n');
}

/** What a report says when retention prunes old messages (MESSAGES_KEEP_DAYS). */
const coversNote = (day: string) =>
  `covers from ${day}: older messages are pruned (MESSAGES_KEEP_DAYS), so an earlier day may count fewer`;

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
        async (ctx): Promise<Report | { currency: string; covers_from?: string; csv: string }> => {
          if (!BY.includes(o.by)) throw new CliError(`--by is one of ${BY.join(', ')}`);
          let accountIds: number[] | undefined;
          if (o.email !== undefined) {
            const account = await requireAccount(ctx, o.email, o.parent);
            accountIds = [account.id, ...(await subaccountIds(ctx.db.kysely, account.id))];
          }
          try {
            const report = await marginReport(ctx, { from: o.from, to: o.to, accountIds, by: o.by });
            if (!o.csv) return report;
            const { rows, totals: _totals, ...head } = report;
            return { ...head, csv: marginCsv(o.by, rows) };
          } catch (err) {
            if (err instanceof MarginError) throw new CliError(err.message);
            throw err;
          }
        },
        (r) => {
          if (!('csv' in r)) return marginsText(r, o.by);
          // The CSV is the output: the coverage goes to standard error.
          if (r.covers_from !== undefined) process.stderr.write(coversNote(r.covers_from) + '\n');
          return r.csv;
        },
      ),
    );
}
