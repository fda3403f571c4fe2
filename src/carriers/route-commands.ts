import type { Command } from 'commander';
import { CHANNELS } from '../channels.js';
import type { BaseContext } from '../context.js';
import type { CliRunner } from '../cli/runner.js';
import { requireAccount } from '../cli/helpers.js';
import { CostTable, formatCost } from './costs.js';
import { listDemoted } from './quality.js';
import { STRATEGIES } from './routing.js';
import { addRoute } from './route-admin.js';
import { PROBE_EVERY } from './strategies.js';
import { deleteRoute, listCosts, listPublicRoutes, type PublicRoute } from './index.js';

export async function accountIdOf(ctx: BaseContext, email: string | undefined): Promise<number> {
  return email === undefined ? 0 : (await requireAccount(ctx, email)).id;
}

/** `routes add`'s options as the route service takes them. */
async function addRouteFrom(ctx: BaseContext, o: Record<string, any>) {
  return addRoute(ctx, {
    channel: o.channel,
    prefix: o.prefix,
    carriers: String(o.carriers).split(','),
    accountId: await accountIdOf(ctx, o.account),
    account: o.account ?? null,
    strategy: o.strategy,
    weights: o.weights === undefined ? undefined : String(o.weights).split(','),
  });
}

/** How a route chooses, in a sentence, with the costs at its prefix and the connectors demoted now. */
export function explainRoute(route: PublicRoute, costs: CostTable, demoted: Set<string>): string {
  const names = route.carriers.join(', ');
  let how: string;
  if (route.strategy === 'least-cost') {
    const priced = route.carriers.map((c) => {
      const cost = costs.costFor(c, route.prefix);
      return `${c} ${cost === null ? 'no cost' : formatCost(cost)}`;
    });
    how = `the cheapest of ${names} that is up and not demoted, by the cost for each number (at ${route.prefix || 'any'}: ${priced.join(', ')}; no cost comes last); the others on failure`;
  } else if (route.strategy === 'weighted') {
    how = `shared ${route.weights!.join('/')} among ${names} that are up and not demoted; the others on failure`;
  } else how = `the first of ${names} that is up; the next on failure`;
  const down = route.carriers.filter((c) => demoted.has(c));
  if (down.length > 0)
    how += `. Demoted: ${down.join(', ')} (skipped while another is healthy, one message in ${PROBE_EVERY} as a probe)`;
  return how;
}

async function listRoutesExplained(ctx: BaseContext) {
  const [routes, costs, demoted] = await Promise.all([
    listPublicRoutes(ctx.db.kysely),
    listCosts(ctx.db.kysely),
    listDemoted(ctx.db.kysely),
  ]);
  const table = new CostTable(costs);
  const names = new Set(demoted.map((d) => d.carrier));
  return { routes: routes.map((r) => ({ ...r, explain: explainRoute(r, table, names) })) };
}

export function routeCommands(program: Command, run: CliRunner): void {
  const routes = program.command('routes').description('which connectors carry which traffic');
  routes
    .command('add')
    .requiredOption('--channel <channel>', CHANNELS.join('|'))
    .requiredOption('--prefix <digits>', 'destination prefix with country code; "" for every number')
    .requiredOption('--carriers <names>', 'comma-separated connectors, in failover order')
    .option('--account <email>', 'only this account’s traffic')
    .option('--strategy <strategy>', `${STRATEGIES.join('|')} (default priority: the first that is up)`)
    .option('--weights <list>', 'with --strategy weighted: one whole number per carrier, e.g. 70,30')
    .option('--json', 'print one JSON object')
    .action((o) => run(o, (ctx) => addRouteFrom(ctx, o)));
  routes
    .command('list')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        (ctx) => listRoutesExplained(ctx),
        (r) =>
          r.routes
            .map(
              (x) =>
                `${x.channel} ${x.prefix || '(any)'}${x.account ? ` [${x.account}]` : ''} ${x.strategy}: ${x.explain}`,
            )
            .join('\n') || '(none)',
      ),
    );
  routes
    .command('remove')
    .requiredOption('--channel <channel>')
    .requiredOption('--prefix <digits>')
    .option('--account <email>')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(o, async (ctx) => {
        const accountId = await accountIdOf(ctx, o.account);
        return { removed: await deleteRoute(ctx.db.kysely, { channel: o.channel, prefix: o.prefix, accountId }) };
      }),
    );
}
