import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { BaseContext } from '../../context.js';
import { PARENT_OPTION, requireAccount } from '../../cli/helpers.js';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { importLandlineRows, type LandlineRow } from './landlines.js';
import { isSenderName, registerSender, unregisterSender } from './senders.js';

export async function addSender(
  ctx: BaseContext,
  email: string,
  name: string,
  rcs: boolean,
  parentEmail?: string,
): Promise<{ sender: string; rcs: boolean }> {
  if (!isSenderName(name))
    throw new CliError(
      '--sender is 1 to 11 letters, digits or spaces with at least one letter, or 3 to 15 digits (a short code or a long number)',
    );
  const account = await requireAccount(ctx, email, parentEmail);
  await registerSender(ctx, account.id, name, rcs);
  return { sender: name, rcs };
}

/**
 * The landline numbering-plan file: one `country_code,prefix[,description]`
 * per line (digits, digits, free text); blank lines and lines starting with
 * '#' are skipped, as is a first line `country_code,prefix…` (a header).
 */
export function parseLandlineFile(content: string): LandlineRow[] {
  const rows: LandlineRow[] = [];
  content.split(/\r?\n/).forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#') || (i === 0 && /^country_code\s*,/i.test(trimmed))) return;
    const [cc, prefix] = trimmed.split(',', 2).map((s) => s.trim());
    if (!/^\d{1,3}$/.test(cc ?? '') || !/^\d{1,10}$/.test(prefix ?? ''))
      throw new CliError(
        `line ${i + 1}: expected country_code,prefix[,description] with digits, got ${JSON.stringify(trimmed.slice(0, 80))}`,
      );
    const description = trimmed.split(',').slice(2).join(',').trim();
    rows.push({ countryCode: cc, prefix, description: description === '' ? null : description.slice(0, 200) });
  });
  return rows;
}

export function smsCommands(program: Command, run: CliRunner): void {
  const senders = program
    .command('senders')
    .description('SMS senders of an account: alphanumeric names, short codes, long numbers');
  senders
    .command('add')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .requiredOption('--sender <name>', 'alphanumeric (1 to 11 characters) or numeric (3 to 15 digits)')
    .option('--rcs', 'linked for RCS (channel 2)', false)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        (ctx) => addSender(ctx, o.email, o.sender, o.rcs === true, o.parent),
        (r) => `sender ${r.sender} registered${r.rcs ? ' (RCS)' : ''}`,
      ),
    );

  senders
    .command('remove')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .requiredOption('--sender <name>')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => unregisterSender(ctx, (await requireAccount(ctx, o.email, o.parent)).id, String(o.sender)),
        (r) => (r.removed ? `sender ${o.sender} removed` : `no sender ${o.sender}`),
      ),
    );

  program
    .command('landlines')
    .description('the landline numbering plan (SMS code sms_19)')
    .command('import')
    .requiredOption('--file <path>', 'CSV: country_code,prefix[,description] per line')
    .option('--replace', 'drop the current table first', false)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          let content: string;
          try {
            content = readFileSync(o.file, 'utf8');
          } catch (err) {
            throw new CliError(`cannot read ${o.file}: ${(err as Error).message}`);
          }
          const rows = parseLandlineFile(content);
          return importLandlineRows(ctx, rows, o.replace === true);
        },
        (r) => `imported ${r.imported} landline prefixes (${r.total} in the table)`,
      ),
    );
}
