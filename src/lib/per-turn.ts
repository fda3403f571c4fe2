type Waiter<V> = { resolve: (value: V | undefined) => void; reject: (error: unknown) => void };

/**
 * Lookups asked for in one turn of the event loop, answered by one load
 * started at the end of that turn: each answer comes from a read that began
 * after its caller asked, as a read of its own would, for one round trip
 * instead of one each. A key missing from the loaded map answers undefined.
 */
export function perTurn<K, V>(load: (keys: K[]) => Promise<Map<K, V>>): (key: K) => Promise<V | undefined> {
  let waiting: Map<K, Array<Waiter<V>>> | undefined;
  const flush = async () => {
    const batch = waiting!;
    waiting = undefined;
    try {
      const found = await load([...batch.keys()]);
      for (const [key, callers] of batch) for (const c of callers) c.resolve(found.get(key));
    } catch (error) {
      for (const callers of batch.values()) for (const c of callers) c.reject(error);
    }
  };
  return (key) =>
    new Promise((resolve, reject) => {
      if (!waiting) {
        waiting = new Map();
        setImmediate(flush);
      }
      const callers = waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
    });
}
