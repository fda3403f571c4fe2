/* Shared setup of the route strategy and quality failover suites (src/carriers/route-*.test.ts, quality-*.test.ts). */
import { expect } from 'vitest';
import { eventually, type Harness } from './harness.js';
import { smppTools } from './smpp-suite.js';

export function routingTools(get: () => Harness) {
  const tools = smppTools(get);
  const { cli } = tools;

  /** A connector's cost for a prefix in ten-thousandths, set as an operator does; waits until this process uses it. */
  async function setCost(carrier: string, prefix: string, cost: number) {
    const amount = (cost / 10_000).toFixed(4);
    const set = await cli('carriers', 'costs', 'set', '--name', carrier, '--prefix', prefix, '--cost', amount);
    expect(set.error).toBeUndefined();
    await eventually(async () => get().ctx.carriers.manager.health.costFor(carrier, prefix) === cost);
  }

  /** A route with a strategy; waits until this process routes by it. */
  async function route(prefix: string, carriers: string[], strategy: string, extra: string[] = []) {
    const added = await cli(
      'routes',
      'add',
      '--channel',
      'sms',
      '--prefix',
      prefix,
      '--carriers',
      carriers.join(','),
      '--strategy',
      strategy,
      ...extra,
    );
    expect(added.error).toBeUndefined();
    await eventually(async () =>
      get().ctx.carriers.manager.routes.some((r) => r.prefix === prefix && r.strategy === strategy),
    );
    return added;
  }

  /** `n` national numbers (country code 52 added by the API) under `prefix` (with its 52). */
  const numbers = (prefix: string, n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => `${prefix.slice(2)}${String(from + i).padStart(10 - prefix.length + 2, '0')}`);

  /** Sends to every number, waits until each message was handed over, and returns the messages. */
  async function sendAll(apikey: string, list: string[]) {
    const refs = await tools.send(apikey, list.join(','));
    const rows = () =>
      get().ctx.db.kysely.selectFrom('messages').selectAll().where('reference', 'in', refs).orderBy('id').execute();
    await eventually(async () => (await rows()).every((m) => m.carrier !== null && m.sent_at !== null), 20_000);
    return rows();
  }

  const byCarrier = (rows: Array<{ carrier: string | null }>) => {
    const counts: Record<string, number> = {};
    for (const r of rows) counts[r.carrier!] = (counts[r.carrier!] ?? 0) + 1;
    return counts;
  };

  return { ...tools, setCost, route, numbers, sendAll, byCarrier };
}
