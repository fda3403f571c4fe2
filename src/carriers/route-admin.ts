import { CHANNELS } from '../channels.js';
import type { BaseContext } from '../context.js';
import { CliError } from '../cli/runner.js';
import { routeRefusal } from './kinds.js';
import { STRATEGIES, type Strategy } from './routing.js';
import { deleteRouteById, findCarrier, replaceRoute } from './index.js';

// The changes to routes that `routes add|remove` and the operator API make. A refusal is a CliError, whose message
// the operator API answers as well.

/** A route as `routes add` takes it: the account by id (0: every account) and the name it is shown by. */
export interface RouteRequest {
  channel: string;
  prefix: string;
  carriers: string[];
  accountId: number;
  account: string | null;
  strategy?: string;
  /** With `weighted`: one whole number (as text) per carrier. */
  weights?: string[];
}

function checkedWeights(given: string[] | undefined, strategy: Strategy, carriers: string[]): number[] | null {
  if (strategy !== 'weighted') {
    if (given !== undefined)
      throw new CliError('--weights goes with --strategy weighted', { code: 'weights_unweighted' });
    return null;
  }
  if (given === undefined) return carriers.map(() => 1);
  const weights = given.map((w) => w.trim());
  if (weights.length !== carriers.length)
    throw new CliError('--weights has one weight per carrier of --carriers', { code: 'weights_count' });
  if (weights.some((w) => !/^\d{1,6}$/.test(w)))
    throw new CliError('--weights are whole numbers from 0 to 999999', { code: 'weights_whole' });
  const numbers = weights.map(Number);
  if (numbers.every((w) => w === 0))
    throw new CliError('--weights: at least one weight above 0', { code: 'weights_zero' });
  return numbers;
}

/** Adds (or replaces) the route of a channel, prefix and account; what `routes add` prints, with the route's id. */
export async function addRoute(ctx: Pick<BaseContext, 'db'>, r: RouteRequest) {
  if (!(CHANNELS as readonly string[]).includes(r.channel))
    throw new CliError(`--channel is one of ${CHANNELS.join(', ')}`, { code: 'route_channel' });
  if (!/^\d{0,15}$/.test(r.prefix))
    throw new CliError('--prefix is up to 15 digits (country code first), or empty for every number', {
      code: 'route_prefix',
    });
  const names = r.carriers.map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) throw new CliError('--carriers names at least one connector', { code: 'route_no_carrier' });
  if (new Set(names).size !== names.length)
    throw new CliError('--carriers names a connector twice', { code: 'route_carrier_twice' });
  const strategy = (r.strategy ?? 'priority') as Strategy;
  if (!STRATEGIES.includes(strategy))
    throw new CliError(`--strategy is one of ${STRATEGIES.join(', ')}`, { code: 'route_strategy' });
  const weights = checkedWeights(r.weights, strategy, names);
  for (const n of names) {
    const carrier = await findCarrier(ctx.db.kysely, n);
    if (!carrier) throw new CliError(`no carrier named ${n}`, { code: 'carrier_missing', params: { name: n } });
    const refusal = routeRefusal(carrier.type, r.channel as (typeof CHANNELS)[number]);
    if (refusal)
      throw new CliError(`--carriers ${n}: ${refusal}; route --channel ${r.channel} to another connector`, {
        code: 'route_carrier_channel',
        params: { name: n, channel: r.channel },
      });
  }
  const key = { channel: r.channel, prefix: r.prefix, accountId: r.accountId };
  const id = await replaceRoute(ctx.db.kysely, { ...key, carriers: names, strategy, weights });
  return {
    id,
    channel: r.channel,
    prefix: r.prefix,
    carriers: names,
    account: r.account,
    strategy,
    ...(weights ? { weights } : {}),
  };
}

/** Removes the route with this id (as `routes list` shows it); whether there was one. */
export const removeRouteById = async (ctx: Pick<BaseContext, 'db'>, id: number) => deleteRouteById(ctx.db.kysely, id);
