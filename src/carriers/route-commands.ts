import type { Command } from 'commander';
import { CHANNELS } from '../channels.js';
import type { BaseContext } from '../context.js';
import { CliError, type CliRunner } from '../cli/runner.js';
import { requireAccount } from '../cli/helpers.js';
import { CostTable, formatCost } from './costs.js';
import { routeRefusal } from './kinds.js';
import { listDemoted } from './quality.js';
import { STRATEGIES, type Strategy } from './routing.js';
import { PROBE_EVERY } from './strategies.js';
import { deleteRoute, findCarrier, listCosts, listPublicRoutes, replaceRoute, type PublicRoute } from './index.js';

export async function accountIdOf(ctx: BaseContext, email: string | undefined): Promise<number> {
  return email === undefined ? 0 : (await requireAccount(ctx, email)).id;
}

function parseWeights(value: string | undefined, strategy: Strategy, carriers: string[]): number[] | null {
  if (strategy !== 'weighted') {
    if (value !== undefined) throw new CliError('--weights goes with --strategy weighted');
    return null;
  }
  if (value === undefined) return carriers.map(() => 1);
  const weights = value.split(',').map((w) => w.trim());
  if (weights.length !== carriers.length) throw new CliError('--weights has one weight per carrier of --carriers');
  if (weights.some((w) => !/^\d{1,6}$/.test(w))) throw new CliError('--weights are whole numbers from 0 to 999999');
  const numbers = weights.map(Number);
  if (numbers.every((w) => w === 0)) throw new CliError('--weights: at least one weight above 0');
  return numbers;
}

async function addRoute(ctx: BaseContext, o: Record<string, any>) {
  if (!CHANNELS.includes(o.channel)) throw new CliError(`--channel is one of ${CHANNELS.join(', ')}`);
  if (!/^\d{0,15}$/.test(o.prefix))
    throw new CliError('--prefix is up to 15 digits (country code first), or empty for every number');
  const names = String(o.carriers)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new CliError('--carriers names at least one connector');
  if (new Set(names).size !== names.length) throw new CliError('--carriers names a connector twice');
  const strategy = (o.strategy ?? 'priority') as Strategy;
  if (!STRATEGIES.includes(strategy)) throw new CliError(`--strategy is one of ${STRATEGIES.join(', ')}`);
  const weights = parseWeights(o.weights, strategy, names);
  for (const n of names) {
    const carrier = await findCarrier(ctx.db.kysely, n);
    if (!carrier) throw new CliError(`no carrier named ${n}`);
    const refusal = routeRefusal(carrier.type, o.channel);
    if (refusal) throw new CliError(`--carriers ${n}: ${refusal}; route --channel ${o.channel} to another connector`);
  }
  const accountId = await accountIdOf(ctx, o.account);
  await replaceRoute(ctx.db.kysely, {
    channel: o.channel,
    prefix: o.prefix,
    accountId,
    carriers: names,
    strategy,
    weights,
  });
  return {
    channel: o.channel,
    prefix: o.prefix,
    carriers: names,
    account: o.account ?? null,
    strategy,
    ...(weights ? { weights } : {}),
  };
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
    .action((o) => run(o, (ctx) => addRoute(ctx, o)));
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
