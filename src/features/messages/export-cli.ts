import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import type { Command } from 'commander';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { formatLocal, parseLocal } from '../../lib/time.js';
import { exportOldMessages, type ExportFormat } from '../../messaging/export.js';
import { retentionCutoff } from '../../messaging/retention.js';
import { csvCell } from '../../text/csv-cell.js';

interface ExportSummary extends Record<string, unknown> {
  messages: number;
  output: string;
  format: ExportFormat;
  /** Mexico City midnight of --before: the export holds the final messages created before it. */
  before: string;
  /** What the next prune removes: the final messages created before this (null: MESSAGES_KEEP_DAYS is 0). */
  prune_before: string | null;
  /** Whether this export holds everything the next prune would remove. */
  covers_next_prune: boolean;
}

function optionsOf(o: { before?: string; format?: string; output?: string; json?: boolean }) {
  const cutoff = o.before !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(o.before) ? parseLocal(o.before) : null;
  if (cutoff === null) throw new CliError('--before is a date YYYY-MM-DD (Mexico City)');
  const format = o.format ?? 'jsonl';
  if (format !== 'csv' && format !== 'jsonl') throw new CliError('--format is csv or jsonl');
  if (o.output === undefined && o.json) throw new CliError('--json prints a summary: give --output for the messages');
  return { cutoff, format: format as ExportFormat, output: o.output };
}

/**
 * `messages export --before D`: the final messages created before Mexico City midnight of D, the ones retention
 * removes, streamed to --output (never overwriting a file) or stdout, for an archive taken before a prune.
 */
export function exportCommand(messages: Command, run: CliRunner): void {
  messages
    .command('export')
    .description('the final messages created before --before (what retention prunes), as JSON lines or CSV')
    .requiredOption('--before <date>', 'Mexico City date YYYY-MM-DD: the messages created before its midnight')
    .option('--output <file>', 'write them to this new file (default: standard output)')
    .option('--format <format>', 'jsonl (one JSON object a line) or csv', 'jsonl')
    .option('--json', 'print the summary as one JSON object (with --output)')
    .action((o) =>
      run(
        o,
        async (ctx): Promise<ExportSummary> => {
          const { cutoff, format, output } = optionsOf(o);
          const out = output === undefined ? process.stdout : createWriteStream(output, { flags: 'wx' });
          if (output !== undefined) await onceOpen(out as ReturnType<typeof createWriteStream>);
          const count = await exportOldMessages(ctx.db.kysely, cutoff, format, out, csvCell);
          if (output !== undefined) {
            out.end();
            await finished(out);
          }
          const prune = retentionCutoff(ctx.config, Date.now());
          return {
            messages: count,
            output: output ?? '-',
            format,
            before: formatLocal(cutoff),
            prune_before: prune === null ? null : formatLocal(prune),
            covers_next_prune: prune !== null && cutoff >= prune,
          };
        },
        // On standard output the messages are the output: the summary goes to standard error.
        (s) => {
          const line = `${s.messages} messages created before ${s.before} written to ${s.output}${
            s.prune_before === null
              ? ' (retention is off: MESSAGES_KEEP_DAYS is 0)'
              : s.covers_next_prune
                ? ` (the next prune removes those created before ${s.prune_before}: all in this export)`
                : ` (the next prune removes those created before ${s.prune_before}: give a later --before to hold them all)`
          }`;
          if (s.output !== '-') return line;
          process.stderr.write(line + '\n');
          return null;
        },
      ),
    );
}

/** A new file opened (or the error saying why not: it exists, no such directory). */
function onceOpen(stream: ReturnType<typeof createWriteStream>): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', (err) => reject(new CliError(`cannot write --output: ${err.message}`)));
  });
}
