import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { FairQueue } from './fair-queue.js';
import { threadPoolSize } from './threadpool.js';

/**
 * At most half the thread pool, and no more than half the cores, hash at
 * once: scrypt holds a thread (and a core) for tens of milliseconds, and DNS
 * lookups, file access and the event loop need the rest (bench/security.ts).
 */
const hashingLimit = Math.max(1, Math.min(Math.floor(threadPoolSize() / 2), Math.floor(availableParallelism() / 2)));

/**
 * Hashes one caller (an address: SMPP binds and panel sign-ins alike) may
 * have running and waiting at once; more are refused with CallerBusy: five
 * panel sign-ins at once (three hashes each), or a customer's binds opening together.
 */
export const HASHES_PER_CALLER = 16;

/** Callers take turns (fair-queue.ts): a flood from one address does not make another's sign-in wait behind it. */
const hashing = new FairQueue(hashingLimit, HASHES_PER_CALLER);

const scrypt = (pw: string, salt: Buffer, len: number, opts: ScryptOptions, caller?: string) =>
  hashing.run(
    caller,
    () =>
      new Promise<Buffer>((resolve, reject) => scryptCb(pw, salt, len, opts, (e, k) => (e ? reject(e) : resolve(k)))),
  );

/** Hashing figures of this process (tests): running, waiting, peak at once, started so far, and the limit. */
export const hashingLoad = () => ({
  running: hashing.running,
  waiting: hashing.waiting,
  peak: hashing.peak,
  started: hashing.started,
  limit: hashingLimit,
});

const N = 16384,
  R = 8,
  P = 1,
  LEN = 32;

/** scrypt with the parameters of stored passwords, for a salt the caller chooses. */
export const scryptKey = (password: string, salt: Buffer): Promise<Buffer> =>
  scrypt(password, salt, LEN, { N, r: R, p: P });

/** scrypt$N$r$p$salt$hash, all parameters stored so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, LEN, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * Whether `password` matches `stored`. `caller` (the address asking) takes
 * its turn among the others and is refused with CallerBusy past
 * HASHES_PER_CALLER at once: give it for every attempt someone outside can make.
 */
export async function verifyPassword(password: string, stored: string, caller?: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt') return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: +n, r: +r, p: +p }, caller);
  return timingSafeEqual(key, expected);
}
