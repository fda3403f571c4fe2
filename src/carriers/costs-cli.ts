import type { Command } from 'commander';
import { table } from '../cli/helpers.js';
import type { CliRunner } from '../cli/runner.js';
import { costPrefix, setCost, shownCost } from './cost-admin.js';
import { dropCarrierCost, listCarrierCosts } from './costs.js';

/** `carriers costs set|list|remove`: money per message part by connector and destination prefix. */
export function costCommands(carriers: Command, run: CliRunner): void {
  const costs = carriers.command('costs').description('what each connector charges per message part, by prefix');
  costs
    .command('set')
    .requiredOption('--name <name>', 'the connector')
    .requiredOption('--prefix <digits>', 'destination prefix with the country code')
    .requiredOption('--cost <amount>', 'money per message part in COST_CURRENCY, up to 4 decimals')
    .option('--json', 'print one JSON object')
    .action((o) => run(o, (ctx) => setCost(ctx, o.name, o.prefix, o.cost)));
  costs
    .command('list')
    .option('--name <name>', 'only this connector')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => ({ costs: (await listCarrierCosts(ctx.db.kysely, o.name)).map(shownCost) }),
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
        const prefix = costPrefix(o.prefix);
        return { removed: await dropCarrierCost(ctx.db, o.name, prefix) };
      }),
    );
}
