import { availableParallelism } from 'node:os';

/**
 * Sizes libuv's thread pool before its first use (imported first by main.ts).
 * Password hashing (scrypt), DNS lookups of webhook hosts and file access
 * share it; Node's default of 4 threads let a few hashes hold up every lookup.
 * UV_THREADPOOL_SIZE from the environment wins.
 */
process.env.UV_THREADPOOL_SIZE ??= String(Math.max(8, availableParallelism() * 2));

export const threadPoolSize = (): number => Number(process.env.UV_THREADPOOL_SIZE) || 4;
