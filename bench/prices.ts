import { performance } from 'node:perf_hooks';
import { writeMessages as submitMessages } from '../src/messaging/write.js';
import { pricesFor } from '../src/messaging/prices.js';
import { bumpRevision } from '../src/db/revisioned.js';
import type { OutboundMessage } from '../src/messaging/ports.js';
import { RouterDriver } from '../src/carriers/router.js';
import { fmt, startBenchService, type BenchService } from './lib.js';

const PREFIXES = 10_000;
/** Connectors of every route (the simulator and two more), each with its own 10,000 cost prefixes. */
const CARRIERS = ['simulator', 'bench-a', 'bench-b'];
const ROUNDS = 10;
const SENDS_PER_ROUND = 200;
const LOOKUPS = 10_000;
const CHOICES = 100_000;

/** The prefixes: 4 to 8 digits under 52, distinct. */
const prefixes = (salt: number) =>
  [
    ...new Set(
      Array.from({ length: PREFIXES * 2 }, (_, i) =>
        `52${String(1_000_000 + (i + salt) * 97).slice(0, 2 + (i % 5))}${i}`.slice(0, 10),
      ),
    ),
  ].slice(0, PREFIXES);

/** 10,000 deployment prices and 1,000 of the account's own; 10,000 costs per connector; 10,000 least-cost routes. */
async function configurePrefixes(svc: BenchService): Promise<void> {
  const db = svc.service.ctx.db.kysely;
  const insert = async <T>(table: 'prices' | 'carrier_costs' | 'carrier_routes', rows: T[]) => {
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto(table)
        .values(rows.slice(i, i + 500) as never)
        .execute();
  };
  const own = prefixes(0).slice(0, 1_000);
  await insert('prices', [
    ...prefixes(0).map((prefix, i) => ({ account_id: 0, channel: 'sms', prefix, units: 1_000 + (i % 5_000) })),
    ...own.map((prefix, i) => ({ account_id: svc.accountId, channel: 'sms', prefix, units: 2_000 + i })),
  ]);
  await insert(
    'carrier_costs',
    CARRIERS.flatMap((carrier, c) =>
      prefixes(c + 1).map((prefix, i) => ({ carrier, prefix, cost: 100 + ((i * 7 + c) % 400) })),
    ),
  );
  await insert(
    'carrier_routes',
    prefixes(9).map((prefix) => ({
      channel: 'sms',
      prefix,
      account_id: 0,
      carriers: JSON.stringify(CARRIERS),
      strategy: 'least-cost',
      created_at: Date.now(),
    })),
  );
  await bumpRevision(db, 'prices');
  await bumpRevision(db, 'costs');
  await svc.service.ctx.carriers.manager.refreshNow();
  if (svc.service.ctx.carriers.manager.routes.length < PREFIXES) throw new Error('the routes did not load');
}

/** ms of `count` single-recipient accepted sends (one transaction each). */
async function sends(svc: BenchService, numbers: string[], count: number, from: number): Promise<number> {
  const { ctx } = svc.service;
  const t0 = performance.now();
  for (let i = 0; i < count; i++)
    await ctx.db.kysely.transaction().execute((trx) =>
      submitMessages(trx, ctx, {
        accountId: svc.accountId,
        channel: 'sms',
        source: 'sms',
        recipients: [{ countryCode: '52', number: numbers[(from + i) % numbers.length] }],
        text: 'Hola',
      }),
    );
  return performance.now() - t0;
}

/** ms of `count` price lookups of one message (the account's query, then the cached longest-prefix matches). */
async function lookups(svc: BenchService, numbers: string[], count: number): Promise<number> {
  const { ctx } = svc.service;
  const t0 = performance.now();
  for (let i = 0; i < count; i++)
    await pricesFor(ctx.db.kysely, ctx.prices, svc.accountId, 'sms', [numbers[i % numbers.length]]);
  return performance.now() - t0;
}

/** µs of the longest-prefix matches that price one message (the account's prices, then the deployment's): what prefixes add to the lookup. */
async function priceMatchUs(svc: BenchService, numbers: string[]): Promise<number> {
  const { ctx } = svc.service;
  const table = await ctx.prices.table(ctx.db.kysely);
  const own = `${svc.accountId}:sms`;
  let hits = 0;
  const run = (count: number) => {
    for (let i = 0; i < count; i++) {
      const n = numbers[i % numbers.length];
      if (table.match(own, n) ?? table.match('0:sms', n)) hits++;
    }
  };
  run(10_000);
  const t0 = performance.now();
  run(CHOICES);
  if (hits < 0) throw new Error('unreachable');
  return ((performance.now() - t0) / CHOICES) * 1000;
}

/** µs of one route choice as the router makes it at hand-off: the route, the strategy's order, the chosen one's cost. */
function routeChoiceUs(svc: BenchService, numbers: string[]): number {
  const router = new RouterDriver(svc.service.ctx.carriers.manager);
  const messages: OutboundMessage[] = numbers.map((number, id) => ({
    id,
    reference: String(id),
    channel: 'sms',
    countryCode: '52',
    number,
    text: 'Hola',
    sender: null,
    flash: false,
    meta: null,
    accountId: svc.accountId,
  }));
  let sink = 0;
  const run = (count: number) => {
    for (let i = 0; i < count; i++) {
      const m = messages[i % messages.length];
      const first = router.candidates(m)?.[0];
      if (first) sink += router.costOf(first.name, m.number).cost?.amount ?? 1;
    }
  };
  run(10_000);
  const t0 = performance.now();
  run(CHOICES);
  if (sink < 0) throw new Error('unreachable');
  return ((performance.now() - t0) / CHOICES) * 1000;
}

/**
 * Issue 23's benchmark for prices and routes: with 10,000 prefixes (prices,
 * each connector's costs, least-cost routes) against a deployment with none,
 * two services side by side, their rounds interleaved. What a message pays
 * for them is the price lookup (at accept) and the route choice (at
 * hand-off); the target is under 5 % of a single send.
 */
type Pair<T> = { plain: T; priced: T };

/** One pair of services started in the given order (both orders are run, so which starts first is no part of the comparison). */
async function measurePair(pricedFirst: boolean, numbers: string[]) {
  const env = { WORKER_CONCURRENCY: '0', CARRIER_POLL_MS: '60000' };
  const first = await startBenchService(env);
  const second = await startBenchService(env);
  const svc: Pair<BenchService> = pricedFirst ? { priced: first, plain: second } : { plain: first, priced: second };
  try {
    await configurePrefixes(svc.priced);
    for (const s of [svc.plain, svc.priced]) await sends(s, numbers, 300, 0); // warm-up
    const send: Pair<number> = { plain: 0, priced: 0 };
    const lookup: Pair<number> = { plain: 0, priced: 0 };
    for (let r = 0; r < ROUNDS; r++)
      for (const k of r % 2 === 0 ? (['plain', 'priced'] as const) : (['priced', 'plain'] as const)) {
        send[k] += await sends(svc[k], numbers, SENDS_PER_ROUND, r * SENDS_PER_ROUND);
        lookup[k] += await lookups(svc[k], numbers, LOOKUPS / ROUNDS);
      }
    return {
      sendMs: { plain: send.plain / (ROUNDS * SENDS_PER_ROUND), priced: send.priced / (ROUNDS * SENDS_PER_ROUND) },
      lookupMs: { plain: lookup.plain / LOOKUPS, priced: lookup.priced / LOOKUPS },
      choiceUs: { plain: routeChoiceUs(svc.plain, numbers), priced: routeChoiceUs(svc.priced, numbers) },
      matchUs: { plain: await priceMatchUs(svc.plain, numbers), priced: await priceMatchUs(svc.priced, numbers) },
    };
  } finally {
    await first.close();
    await second.close();
  }
}

const mean = (a: Pair<number>, b: Pair<number>): Pair<number> => ({
  plain: (a.plain + b.plain) / 2,
  priced: (a.priced + b.priced) / 2,
});

/**
 * Issue 23's benchmark for prices and routes: with 10,000 prefixes (prices,
 * each connector's costs, least-cost routes) against a deployment with none,
 * two services side by side, their rounds interleaved, and again with the
 * services started in the other order. What a message pays for them is the
 * price lookup (at accept) and the route choice (at hand-off); the target is
 * under 5 % of a single send.
 */
export async function benchPrices(): Promise<string> {
  const numbers = Array.from({ length: 1_000 }, (_, i) => `52${5_500_000_000 + i * 7_919}`);
  const a = await measurePair(false, numbers);
  const b = await measurePair(true, numbers);
  const sendMs = mean(a.sendMs, b.sendMs);
  const lookupMs = mean(a.lookupMs, b.lookupMs);
  const choiceUs = mean(a.choiceUs, b.choiceUs);
  const matchUs = mean(a.matchUs, b.matchUs);
  const prefixUs = matchUs.priced + choiceUs.priced;
  const wholeMs = lookupMs.priced + choiceUs.priced / 1000;
  const ratio = (p: Pair<number>) => fmt(p.priced / p.plain, 3);
  return [
    '## Prices by destination and route choice: 10,000 prefixes',
    '',
    `SQLite, worker off. Two services, one with ${fmt(PREFIXES)} deployment prefix prices (and 1,000 of the account's own), ${fmt(PREFIXES)} cost prefixes for each of ${CARRIERS.length} connectors and ${fmt(PREFIXES)} least-cost routes, one with none; ${ROUNDS} interleaved rounds of ${SENDS_PER_ROUND} single-recipient sends (submitMessages in its transaction) and ${LOOKUPS / ROUNDS} price lookups each; ${fmt(CHOICES)} route choices. Run twice, the services started in either order; means.`,
    '',
    '| measure | no prefixes | 10,000 prefixes |',
    '|---|---:|---:|',
    `| one send (accept: price lookup, debit, insert, queue) | ${fmt(sendMs.plain, 3)} ms | ${fmt(sendMs.priced, 3)} ms |`,
    `| price lookup of one message (the account's query + cached longest-prefix matches) | ${fmt(lookupMs.plain, 3)} ms | ${fmt(lookupMs.priced, 3)} ms |`,
    `| of which the longest-prefix matches (cached table) | ${fmt(matchUs.plain, 2)} µs | ${fmt(matchUs.priced, 2)} µs |`,
    `| route choice of one message at hand-off (route, strategy order, cost) | ${fmt(choiceUs.plain, 2)} µs | ${fmt(choiceUs.priced, 2)} µs |`,
    '',
    `Send with ÷ without: **${fmt(sendMs.priced / sendMs.plain, 3)}** (${ratio(a.sendMs)} with the service with prefixes started second, ${ratio(b.sendMs)} started first). With 10,000 prefixes, route choice and the price's prefix matches cost ${fmt(prefixUs, 1)} µs a message: **${fmt((prefixUs / 1000 / sendMs.priced) * 100, 2)} %** of a single send (target under 5 %). The whole lookup, with the account's one-row query that every send ran before prefix prices (its channel price and credit value), is ${fmt((wholeMs / sendMs.priced) * 100, 1)} %.`,
    '',
  ].join('\n');
}
