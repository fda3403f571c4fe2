import type { Command } from 'commander';
import { PARENT_OPTION, requireAccount } from '../../cli/helpers.js';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { addMoRoute, listMoRoutes, removeMoRoute, routeKey, type MoRoute } from './service.js';

const describe = (r: MoRoute) =>
  [r.number === null ? null : `number ${r.number}`, r.keyword === null ? null : `keyword ${r.keyword}`]
    .filter(Boolean)
    .join(' and ');

/** The human listing: one line a route. */
export function routeTable(routes: MoRoute[]): string {
  if (routes.length === 0) return 'no MO routes';
  const rows = routes.map((r) => [String(r.id), r.number ?? '(any)', r.keyword ?? '(any)', r.email]);
  const header = ['id', 'number', 'keyword', 'account'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows]
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function moRouteCommands(program: Command, run: CliRunner): void {
  const routes = program
    .command('mo-routes')
    .description('which account gets a customer message that answers none of our messages');
  routes
    .command('add')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option('--number <digits>', 'our short code or long number the message is sent to (3 to 15 digits)')
    .option('--keyword <word>', 'its first word (any case, accents ignored)')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const key = routeKey({ number: o.number, keyword: o.keyword });
          if ('problem' in key) throw new CliError(key.problem);
          const account = await requireAccount(ctx, o.email, o.parent);
          const added = await addMoRoute(ctx, account.id, key);
          if ('taken' in added)
            throw new CliError(
              `${describe(added.taken)} is already routed to ${added.taken.email} (id ${added.taken.id})`,
            );
          return { ...added.route };
        },
        (r) => `MO route ${r.id}: ${describe(r)} → ${r.email}`,
      ),
    );
  routes
    .command('list')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => ({ routes: await listMoRoutes(ctx) }),
        (r) => routeTable(r.routes),
      ),
    );
  routes
    .command('remove')
    .requiredOption('--id <n>', 'the route, as mo-routes list shows it')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const id = Number(o.id);
          if (!/^\d{1,15}$/.test(String(o.id)) || !Number.isSafeInteger(id)) throw new CliError('--id is a route id');
          if (!(await removeMoRoute(ctx, id))) throw new CliError(`no MO route with id ${o.id}`);
          return { removed: true };
        },
        () => 'removed',
      ),
    );
}
