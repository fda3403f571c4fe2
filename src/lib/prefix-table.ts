/**
 * Values by number prefix within named groups (an account and channel, a
 * connector), found by the longest prefix of a number that has one: a lookup
 * tries the number's prefixes from the longest present, one map access each,
 * so it costs the same with ten prefixes or ten thousand.
 */
export class PrefixTable<V> {
  private readonly groups = new Map<string, Map<string, V>>();
  private longest = 0;

  set(group: string, prefix: string, value: V): void {
    let entries = this.groups.get(group);
    if (!entries) this.groups.set(group, (entries = new Map()));
    entries.set(prefix, value);
    this.longest = Math.max(this.longest, prefix.length);
  }

  /** The value of the longest prefix of `number` in `group`, with that prefix; null when none matches. */
  match(group: string, number: string): { prefix: string; value: V } | null {
    const entries = this.groups.get(group);
    if (!entries) return null;
    for (let length = Math.min(this.longest, number.length); length >= 0; length--) {
      const prefix = number.slice(0, length);
      const value = entries.get(prefix);
      if (value !== undefined) return { prefix, value };
    }
    return null;
  }
}
