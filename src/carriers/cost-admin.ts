import type { BaseContext } from '../context.js';
import { CliError } from '../cli/runner.js';
import { formatMoney, parseMoney } from '../lib/money.js';
import { saveCarrierCost, type CarrierCost } from './costs.js';
import { findCarrier } from './index.js';

const PREFIX = /^\d{1,15}$/;

export function costPrefix(value: string): string {
  if (!PREFIX.test(String(value))) throw new CliError('--prefix is 1 to 15 digits, with the country code');
  return String(value);
}

/** A cost as `carriers costs` prints it. */
export const shownCost = (c: CarrierCost) => ({ name: c.carrier, prefix: c.prefix, cost: formatMoney(c.cost) });

/** `carriers costs set` and the operator API: a connector's cost per message part at a prefix (money, as text). */
export async function setCost(ctx: Pick<BaseContext, 'db'>, name: string, prefixText: string, costText: string) {
  const prefix = costPrefix(prefixText);
  const cost = parseMoney(costText);
  if (cost === null) throw new CliError('--cost is an amount of money with at most 4 decimals, e.g. 0.0123');
  if (!(await findCarrier(ctx.db.kysely, name))) throw new CliError(`no carrier named ${name}`);
  const row = { carrier: String(name), prefix, cost };
  await saveCarrierCost(ctx.db, row);
  return shownCost(row);
}
