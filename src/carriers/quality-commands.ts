import type { Command } from 'commander';
import { table } from '../cli/helpers.js';
import { CliError, type CliRunner } from '../cli/runner.js';
import { carrierFigures, parseSince, type CarrierFigures, type FiguresBy } from './analytics.js';
import { RATE_SCALE } from './quality.js';
import type { QualityChangeRequest } from './quality-settings.js';

/** The quality options of `carriers set`. */
export function qualityOptions(cmd: Command): Command {
  return cmd
    .option('--min-delivery-rate <rate>', 'demote below this delivery rate (0 to 1; "off" never demotes)')
    .option('--quality-window-minutes <n>', 'sliding window of final receipts (default 10)')
    .option('--quality-min-messages <n>', 'final receipts in the window needed to judge (default 50)');
}

function wholeNumber(value: string, option: string, max: number): number {
  if (!/^\d{1,7}$/.test(value) || Number(value) < 1 || Number(value) > max)
    throw new CliError(`${option} is a whole number from 1 to ${max}`, {
      code: option.slice(2).replaceAll('-', '_'),
      params: { max },
    });
  return Number(value);
}

/** The quality options given, checked: the rate in ten-thousandths. */
export function qualityRequest(o: Record<string, string | undefined>): QualityChangeRequest {
  const request: QualityChangeRequest = {};
  const rate = o.minDeliveryRate;
  if (rate !== undefined) {
    if (rate === 'off') request.minDeliveryRate = null;
    else if (!/^(0(\.\d{1,4})?|1(\.0{1,4})?)$/.test(rate))
      throw new CliError('--min-delivery-rate is a decimal from 0 to 1 (up to 4 decimals) or off', {
        code: 'min_delivery_rate',
      });
    else request.minDeliveryRate = Math.round(Number(rate) * RATE_SCALE);
  }
  if (o.qualityWindowMinutes !== undefined)
    request.windowMinutes = wholeNumber(o.qualityWindowMinutes, '--quality-window-minutes', 1440);
  if (o.qualityMinMessages !== undefined)
    request.minMessages = wholeNumber(o.qualityMinMessages, '--quality-min-messages', 1_000_000);
  return request;
}

const BY: FiguresBy[] = ['carrier', 'prefix'];

const FIGURES = [
  'submitted',
  'delivered',
  'failed',
  'pending',
  'delivery_rate',
  'receipt_p50_ms',
  'receipt_p95_ms',
  'throttled',
  'refused',
  'errors',
  'demoted',
] as const;

/** `carriers stats` without --json: a table of the JSON fields (`prefix` with --by prefix, `(no cost)` for ""). */
const statsTable = (carriers: CarrierFigures[], by: FiguresBy) =>
  by === 'prefix'
    ? table(
        carriers.map((c) => ({ ...c, prefix: c.prefix || '(no cost)' })),
        ['name', 'prefix', ...FIGURES],
      )
    : table(carriers, ['name', ...FIGURES]);

/** `carriers stats [--since 1h] [--by carrier|prefix]`: per connector (and cost prefix) figures over the messages handed over since then. */
export function statsCommand(carriers: Command, run: CliRunner): void {
  carriers
    .command('stats')
    .description(
      'per connector: handed over, delivered, failed, delivery rate, time to final receipt, throttles, refusals, errors',
    )
    .option('--since <age>', 'messages handed over in the last 30m, 1h, 7d… (default 1h)', '1h')
    .option('--by <what>', 'carrier, or prefix: per connector and carrier cost prefix', 'carrier')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const age = parseSince(o.since);
          if (age === null) throw new CliError('--since is a number and m, h or d (30m, 1h, 7d)');
          if (!BY.includes(o.by)) throw new CliError(`--by is one of ${BY.join(', ')}`);
          return { carriers: await carrierFigures(ctx.db.kysely, Date.now() - age, o.by) };
        },
        (r) => statsTable(r.carriers, o.by),
      ),
    );
}
