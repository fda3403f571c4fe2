import { randomBytes, scrypt } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { hashPassword, hashingLoad } from '../src/lib/passwords.js';
import { threadPoolSize } from '../src/lib/threadpool.js';
import { fmt } from './lib.js';

const HASHES = 24;
const ROUNDS = 3;

/** scrypt with the stored-password parameters, straight to the thread pool (what /employee/add did before the limit). */
const rawScrypt = () =>
  new Promise<void>((resolve, reject) =>
    scrypt('secret123', randomBytes(16), 32, { N: 16384, r: 8, p: 1 }, (e) => (e ? reject(e) : resolve())),
  );

/** Ms of one DNS lookup started just after a burst of hashes (what a webhook registration meets). */
async function lookupsDuring(burst: () => Promise<unknown>): Promise<number> {
  const hashes = burst();
  const t0 = performance.now();
  await lookup('localhost');
  const ms = performance.now() - t0;
  await hashes;
  return ms;
}

/**
 * The thread-pool starvation: a burst of password hashes (the
 * /employee/add, /manager/subaccount/add work) against DNS lookups (what
 * webhook registration and delivery need). Baseline: the same hashes sent to
 * the pool unbounded, as before. Rounds interleave the two.
 */
export async function benchSecurity(): Promise<string> {
  const idle: number[] = [];
  const unbounded: number[] = [];
  const bounded: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    idle.push(await lookupsDuring(async () => undefined));
    unbounded.push(await lookupsDuring(() => Promise.all(Array.from({ length: HASHES }, rawScrypt))));
    bounded.push(
      await lookupsDuring(() => Promise.all(Array.from({ length: HASHES }, () => hashPassword('secret123')))),
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const [i, u, b] = [median(idle), median(unbounded), median(bounded)];
  return [
    '## Password hashing vs DNS lookups (thread pool)',
    '',
    `Thread pool of ${threadPoolSize()} threads; hashing limited to ${hashingLoad().limit} at once. Latency of one \`dns.lookup('localhost')\` started just after ${HASHES} scrypt hashes (N=16384, as stored passwords); median of ${ROUNDS} interleaved rounds.`,
    '',
    '| condition | lookup ms |',
    '|---|---:|',
    `| no hashing | ${fmt(i, 2)} |`,
    `| ${HASHES} hashes straight to the pool (before) | ${fmt(u, 2)} |`,
    `| ${HASHES} hashes through hashPassword (now) | ${fmt(b, 2)} |`,
    '',
    `Lookup latency during a hashing burst, before ÷ now: **${fmt(u / b, 1)}×**.`,
    '',
  ].join('\n');
}
