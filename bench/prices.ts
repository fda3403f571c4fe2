import { performance } from 'node:perf_hooks';
import { submitMessages } from '../src/messaging/submit.js';
import { PriceBook, pricesFor } from '../src/messaging/prices.js';
import { bumpRevision } from '../src/db/revisioned.js';
import { fmt, startBenchService, type BenchService } from './lib.js';

const PREFIXES = 10_000;
const SENDS = 2_000;

/** Mean ms of one single-recipient accepted send (one transaction), after a warm-up. */
async function sendMs(svc: BenchService, numbers: string[]): Promise<number> {
  const { ctx } = svc.service;
  const once = (number: string) =>
    ctx.db.kysely.transaction().execute((trx) =>
      submitMessages(trx, ctx, {
        accountId: svc.accountId,
        channel: 'sms',
        source: 'sms',
        recipients: [{ countryCode: '52', number }],
        text: 'Hola',
      }),
    );
  for (let i = 0; i < 200; i++) await once(numbers[i % numbers.length]);
  const t0 = performance.now();
  for (let i = 0; i < SENDS; i++) await once(numbers[i % numbers.length]);
  return (performance.now() - t0) / SENDS;
}

/** 10,000 deployment prefixes of 4 to 8 digits under 52, and 1,000 of the account's own. */
async function configurePrefixes(svc: BenchService): Promise<void> {
  const db = svc.service.ctx.db.kysely;
  const rows = Array.from({ length: PREFIXES }, (_, i) => ({
    account_id: i < 1_000 ? svc.accountId : 0,
    channel: 'sms' as const,
    prefix: `52${String(1_000_000 + i * 97).slice(0, 2 + (i % 5))}${i}`.slice(0, 10),
    units: 1_000 + (i % 5_000),
  }));
  const unique = [...new Map(rows.map((r) => [`${r.account_id}:${r.prefix}`, r])).values()];
  for (let i = 0; i < unique.length; i += 500)
    await db
      .insertInto('prices')
      .values(unique.slice(i, i + 500))
      .execute();
  await bumpRevision(db, 'prices');
}

/**
 * Issue 23's benchmark for prices: the send path with 10,000 prefix prices
 * against the same path with none, and the lookup alone (cached, and the
 * reload after a change). Target: the lookup under 5 % of a send.
 */
export async function benchPrices(): Promise<string> {
  const svc = await startBenchService({ WORKER_CONCURRENCY: '0', CARRIER_POLL_MS: '2000' });
  try {
    const numbers = Array.from({ length: 1_000 }, (_, i) => `52${5_500_000_000 + i * 7_919}`);
    await sendMs(svc, numbers); // warms the whole send path, so the two measured runs compare
    const without = await sendMs(svc, numbers);
    await configurePrefixes(svc);
    const withPrefixes = await sendMs(svc, numbers);
    const db = svc.service.ctx.db.kysely;
    const book = new PriceBook(60_000);
    const t0 = performance.now();
    await book.table(db);
    const reloadMs = performance.now() - t0;
    const t1 = performance.now();
    for (let i = 0; i < SENDS; i++) await pricesFor(db, book, svc.accountId, 'sms', [numbers[i % numbers.length]]);
    const lookupMs = (performance.now() - t1) / SENDS;
    const table = await book.table(db);
    const t2 = performance.now();
    for (let i = 0; i < 100_000; i++) table.match('0:sms', numbers[i % numbers.length]);
    const matchUs = ((performance.now() - t2) / 100_000) * 1000;
    return [
      '## Prices by destination: 10,000 prefixes',
      '',
      `SQLite, worker off, ${fmt(SENDS)} single-recipient sends (submitMessages in its transaction) after a warm-up.`,
      '',
      '| measure | value |',
      '|---|---:|',
      `| one send, no prefix prices | ${fmt(without, 3)} ms |`,
      `| one send, ${fmt(PREFIXES)} prefix prices | ${fmt(withPrefixes, 3)} ms |`,
      `| price lookup of one message (account query + cached longest-prefix match) | ${fmt(lookupMs, 3)} ms |`,
      `| longest-prefix match alone | ${fmt(matchUs, 2)} µs |`,
      `| reload of the ${fmt(PREFIXES)} prefixes after a change (once per change per process) | ${fmt(reloadMs, 1)} ms |`,
      '',
      `Send with ÷ without: **${fmt(withPrefixes / without, 3)}**. What prefix prices add to a send is the cached match: **${fmt((matchUs / 1000 / withPrefixes) * 100, 2)} %** of a send (target under 5 %); the whole lookup, with the account's query that every send already ran before prefix prices, is ${fmt((lookupMs / withPrefixes) * 100, 1)} %.`,
      '',
    ].join('\n');
  } finally {
    await svc.close();
  }
}
