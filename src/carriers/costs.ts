/** Costs are integers in ten-thousandths of COST_CURRENCY: 100 is 0.0100. */
export const COST_SCALE = 10_000;

/** A cost as the CLI and the message's routing reason show it: 4 decimals. */
export function formatCost(tenThousandths: number): string {
  const whole = Math.floor(tenThousandths / COST_SCALE);
  return `${whole}.${String(tenThousandths % COST_SCALE).padStart(4, '0')}`;
}

/**
 * Each connector's cost by destination prefix, held in memory: the longest
 * matching prefix is at most 16 map lookups per connector, however many
 * prefixes are configured.
 */
export class CostTable {
  private readonly byCarrier = new Map<string, Map<string, number>>();

  constructor(rows: Iterable<{ carrier: string; prefix: string; cost: number }> = []) {
    for (const r of rows) {
      let prefixes = this.byCarrier.get(r.carrier);
      if (!prefixes) this.byCarrier.set(r.carrier, (prefixes = new Map()));
      prefixes.set(r.prefix, Number(r.cost));
    }
  }

  /** The cost of one part to `number` through `carrier` (longest cost prefix), or null when it has none for it. */
  costFor(carrier: string, number: string): number | null {
    const prefixes = this.byCarrier.get(carrier);
    if (!prefixes) return null;
    for (let n = Math.min(number.length, 15); n >= 0; n--) {
      const cost = prefixes.get(number.slice(0, n));
      if (cost !== undefined) return cost;
    }
    return null;
  }
}
