import type { Command } from 'commander';
import { table } from '../cli/helpers.js';
import { CliError, type CliRunner } from '../cli/runner.js';
import { formatMoney, parseMoney } from '../lib/money.js';
import { dropCarrierCost, listCarrierCosts, saveCarrierCost, type CarrierCost } from './costs.js';
import { findCarrier } from './index.js';

const PREFIX = /^\d{1,15}$/;

function prefixOf(value: string): string {
  if (!PREFIX.test(String(value))) throw new CliError('--prefix is 1 to 15 digits, with the country code');
  return String(value);
}

const shown = (c: CarrierCost) => ({ name: c.carrier, prefix: c.prefix, cost: formatMoney(c.cost) });

/** `carriers costs set|list|remove`: money per message part by connector and destination prefix. */
export function costCommands(carriers: Command, run: CliRunner): void {
  const costs = carriers.command('costs').description('what each connector charges per message part, by prefix');
  costs
    .command('set')
    .requiredOption('--name <name>', 'the connector')
    .requiredOption('--prefix <digits>', 'destination prefix with the country code')
    .requiredOption('--cost <amount>', 'money per message part in COST_CURRENCY, up to 4 decimals')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(o, async (ctx) => {
        const prefix = prefixOf(o.prefix);
        const cost = parseMoney(o.cost);
        if (cost === null) throw new CliError('--cost is an amount of money with at most 4 decimals, e.g. 0.0123');
        if (!(await findCarrier(ctx.db.kysely, o.name))) throw new CliError(`no carrier named ${o.name}`);
        const row = { carrier: String(o.name), prefix, cost };
        await saveCarrierCost(ctx.db, row);
        return shown(row);
      }),
    );
  costs
    .command('list')
    .option('--name <name>', 'only this connector')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => ({ costs: (await listCarrierCosts(ctx.db.kysely, o.name)).map(shown) }),
        (r) => table(r.costs, ['name', 'prefix', 'cost']),
      ),
    );
  costs
    .command('remove')
    .requiredOption('--name <name>')
    .requiredOption('--prefix <digits>')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(o, async (ctx) => {
        const prefix = prefixOf(o.prefix);
        return { removed: await dropCarrierCost(ctx.db, o.name, prefix) };
      }),
    );
}
