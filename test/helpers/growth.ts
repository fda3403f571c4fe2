/**
 * How a function's time grows with its input, without a wall-clock threshold:
 * the time of one input of `large` characters divided by the time of the
 * same amount of work done as `large / small` inputs of `small` characters.
 * Linear work gives about 1 (less when fixed costs dominate the short
 * inputs), quadratic work gives about `large / small`. Each side is the
 * fastest of seven trials, each repeated until it lasts about 10 ms, so timer
 * noise and a busy machine do not decide the answer (with 2 ms trials, one
 * lost time slice on a loaded 2-core machine once made a linear pattern 3.5).
 */
export async function growthRatio(
  run: (input: string) => unknown,
  worst: (length: number) => string,
  small = 5_000,
  large = 50_000,
): Promise<number> {
  const short = worst(small);
  const long = worst(large);
  const times = Math.round(large / small);
  const once = await timeOf(() => run(long), 1);
  const repeats = Math.max(1, Math.ceil(10 / Math.max(once, 0.001)));
  let longMs = Infinity;
  let shortMs = Infinity;
  // A long input that takes 100 ms already tells: one trial then.
  const trials = once > 100 ? 1 : 7;
  for (let trial = 0; trial < trials; trial++) {
    longMs = Math.min(longMs, await timeOf(() => run(long), repeats));
    shortMs = Math.min(shortMs, await timeOf(() => run(short), repeats * times));
  }
  return longMs / shortMs;
}

async function timeOf(run: () => unknown, repeats: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < repeats; i++) {
    const result = run();
    if (result instanceof Promise) await result;
  }
  return performance.now() - start;
}
