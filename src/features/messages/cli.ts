import type { Command } from 'commander';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { parseLocal } from '../../lib/time.js';
import { traceMessages, type TraceQuery } from './service.js';
import { traceText } from './steps.js';
import { exportCommand } from './export-cli.js';

const DAY = 86_400_000;

function dayStart(value: string | undefined, option: string): number | null {
  if (value === undefined) return null;
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? parseLocal(value) : null;
  if (ms === null) throw new CliError(`${option} is a date YYYY-MM-DD (Mexico City)`);
  return ms;
}

function queryOf(o: Record<string, string | undefined>): TraceQuery {
  const given = [o.reference, o.number, o.carrierId].filter((v) => v !== undefined).length;
  if (given !== 1) throw new CliError('give one of --reference, --number or --carrier-id');
  if ((o.from ?? o.to) !== undefined && o.number === undefined) throw new CliError('--from and --to go with --number');
  if (o.reference !== undefined) {
    if (!/^[\w-]{1,100}$/.test(o.reference)) throw new CliError('--reference is a message reference');
    return { reference: o.reference };
  }
  if (o.number !== undefined) {
    if (!/^\d{6,15}$/.test(o.number))
      throw new CliError('--number is the full number with its country code, digits only');
    const to = dayStart(o.to, '--to');
    return { number: o.number, from: dayStart(o.from, '--from'), to: to === null ? null : to + DAY };
  }
  if (!/^[\w.:-]{1,100}$/.test(o.carrierId!)) throw new CliError('--carrier-id is the id a carrier gave a message');
  return { carrierId: o.carrierId! };
}

/** `messages trace`: a message's whole history, found across accounts (support); `messages export` (retention). */
export function messageCommands(program: Command, run: CliRunner): void {
  const messages = program.command('messages').description('messages across accounts');
  messages
    .command('trace')
    .description(
      'the whole history of a message: accepted (by which key or SMPP user), charged, routed, failed hand-offs, handed over, receipt, webhooks, refund',
    )
    .option('--reference <reference>')
    .option('--number <digits>', 'full number with country code (newest 50)')
    .option('--from <date>', 'with --number: from this Mexico City date')
    .option('--to <date>', 'with --number: to this Mexico City date, included')
    .option('--carrier-id <id>', "the carrier's message id")
    .option('--json', 'print one JSON object')
    .action((o) => run(o, (ctx) => traceMessages(ctx.db.kysely, ctx.secrets.keyEncryption, queryOf(o)), traceText));
  exportCommand(messages, run);
}
