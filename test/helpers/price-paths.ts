/* Random price setups and sends for the property test of prices over every path (src/messaging/price-paths.test.ts). */
import { toUnits } from '../../src/accounts/credits.js';

export type SendPath = 'http' | 'submit_sm' | 'submit_multi' | 'otp';

/** Prefix prices of one owner: prefix → credits. */
export type PrefixPrices = Record<string, number>;

/** One account's price setup (the prices contract's layers), what it sends, and how. */
export interface PriceCase {
  path: SendPath;
  /** Full international numbers (52 + 10 digits). */
  numbers: string[];
  /** SMS parts of the text (GSM-7, so 160 characters in one part, 153 a part beyond). */
  parts: number;
  /** SMPP only: the submit_sm claims to be one part of a concatenated message (UDH). */
  udh: boolean;
  /** Text length in characters, within `parts`. */
  length: number;
  subAccount: boolean;
  own: { prefixes: PrefixPrices; channel: number | null };
  parent: { prefixes: PrefixPrices; channel: number | null };
  deployment: PrefixPrices;
}

/** mulberry32: a small seeded generator, so every run draws the same cases. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PRICES = [0.1, 0.2, 0.25, 0.5, 1, 1.5, 2, 3, 5];
const PATHS: SendPath[] = ['http', 'submit_sm', 'submit_multi', 'otp'];

/**
 * Case `index`: its numbers share a block of their own (52 55 + 4 digits of
 * the index), so prefixes of 8 digits and more, the deployment's included,
 * match only this case's numbers; some prefixes match none of them.
 */
export function drawCase(random: () => number, index: number): PriceCase {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join('');
  const block = `5255${String(index).padStart(4, '0')}`;
  const path = pick(PATHS);
  const many = path === 'http' || path === 'submit_multi';
  const numbers = [
    ...new Set(Array.from({ length: many ? 1 + Math.floor(random() * 3) : 1 }, () => block + digits(4))),
  ];
  const prefix = () => {
    const p = pick(numbers).slice(0, 8 + Math.floor(random() * 5));
    // One in four matches none of the numbers: its last digit changed.
    return random() < 0.25 ? p.slice(0, -1) + ((Number(p.at(-1)) + 1) % 10) : p;
  };
  const prefixes = (): PrefixPrices =>
    Object.fromEntries(Array.from({ length: Math.floor(random() * 3) }, () => [prefix(), pick(PRICES)]));
  const channel = () => (random() < 0.4 ? pick(PRICES) : null);
  const smpp = path === 'submit_sm' || path === 'submit_multi';
  const parts = smpp ? 1 + Math.floor(random() * 6) : 1;
  const length = parts === 1 ? 1 + Math.floor(random() * 160) : (parts - 1) * 153 + 1 + Math.floor(random() * 153);
  const subAccount = random() < 0.5;
  return {
    path,
    numbers,
    parts,
    udh: smpp && random() < 0.5,
    length: Math.max(length, parts === 1 ? 1 : 161),
    subAccount,
    own: { prefixes: prefixes(), channel: channel() },
    parent: subAccount ? { prefixes: prefixes(), channel: channel() } : { prefixes: {}, channel: null },
    deployment: prefixes(),
  };
}

/** The longest prefix of `prices` that `number` starts with, or undefined. */
function longest(prices: PrefixPrices, number: string): number | undefined {
  const hit = Object.keys(prices)
    .filter((p) => number.startsWith(p))
    .sort((a, b) => b.length - a.length)[0];
  return hit === undefined ? undefined : prices[hit];
}

/** The layers of the prices contract, in precedence order. */
export const LAYERS = ['own prefix', 'parent prefix', 'own channel', 'parent channel', 'deployment prefix', 'default'];

/**
 * The price of one part by the prices contract, and the layer that set it:
 * the account's own prefix prices (longest), then its parent's; else its
 * channel price (own, then parent's); else the deployment's prefix prices;
 * else the default (1).
 */
export function contractPrice(c: PriceCase, number: string): { credits: number; layer: string } {
  const found = [
    longest(c.own.prefixes, number),
    longest(c.parent.prefixes, number),
    c.own.channel ?? undefined,
    c.parent.channel ?? undefined,
    longest(c.deployment, number),
    1,
  ];
  const k = found.findIndex((v) => v !== undefined);
  return { credits: found[k]!, layer: LAYERS[k] };
}

/** What the case must cost, in credit units: Σ parts × each recipient's price. */
export const expectedUnits = (c: PriceCase) =>
  c.numbers.reduce((sum, n) => sum + c.parts * toUnits(contractPrice(c, n).credits), 0);
