import { createReadStream } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import type { Command } from 'commander';
import { CliError, type CliRunner } from '../../cli/runner.js';
import {
  addDoNotContact,
  DncError,
  importDoNotContact,
  listDoNotContact,
  MAX_PAGE,
  removeDoNotContact,
} from './service.js';

/** A refused input is an operator mistake: a one-line error and exit code 2. */
async function asOperatorError<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (err) {
    throw err instanceof DncError ? new CliError(err.message) : err;
  }
}

/** The page for a terminal: one number a line, and where the next page starts when there may be one. */
export function shownPage(numbers: string[], limit: number): string {
  if (numbers.length === 0) return '(no numbers)';
  const more = numbers.length === limit ? `\n(more: --after ${numbers[numbers.length - 1]})` : '';
  return numbers.join('\n') + more;
}

/** `dnc add|remove|list|import`: the deployment-wide do-not-contact list. */
export function dncCommands(program: Command, run: CliRunner): void {
  const dnc = program.command('dnc').description('the do-not-contact list: numbers no account sends to');
  dnc
    .command('add')
    .requiredOption('--number <digits>', 'full international number, country code first (525512345678)')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        (ctx) => asOperatorError(() => addDoNotContact(ctx.db, String(o.number))),
        (r) => `${r.number} is on the do-not-contact list`,
      ),
    );
  dnc
    .command('remove')
    .requiredOption('--number <digits>', 'full international number')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        (ctx) => asOperatorError(() => removeDoNotContact(ctx.db, String(o.number))),
        (r) => (r.removed ? `${o.number} was taken off the list` : `${o.number} was not on the list`),
      ),
    );
  dnc
    .command('list')
    .option('--after <digits>', 'start after this number (the last one of the previous page)')
    .option('--limit <n>', `numbers per page, 1 to ${MAX_PAGE}`, '100')
    .option('--json', 'print one JSON object')
    .action((o) => {
      const limit = Number(o.limit);
      return run(
        o,
        (ctx) => asOperatorError(() => listDoNotContact(ctx.db, { after: o.after, limit })),
        (r) => shownPage(r.numbers, limit),
      );
    });
  dnc
    .command('import')
    .requiredOption('--file <path>', 'one number per line, or a CSV whose first column is the number')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const file = String(o.file);
          await access(file, constants.R_OK).catch(() => {
            throw new CliError(`cannot read --file ${file}`);
          });
          // The import records its own entry as it writes (the runner records none for it: audit-hook.ts).
          const audit = { actor: 'cli', action: 'dnc.import', target: file, detail: { file } };
          return asOperatorError(() => importDoNotContact(ctx.db, () => createReadStream(file), undefined, audit));
        },
        (r) => `imported ${r.imported} numbers (numbers already on the list are not counted)`,
      ),
    );
}
