import pg from 'pg';

const ACTIVITY = `SELECT coalesce(wait_event_type, 'CPU') || ' ' || coalesce(wait_event, '') || ' (' || state || ', transaction ' ||
    CASE WHEN now() - xact_start > interval '20 ms' THEN 'over' ELSE 'under' END || ' 20 ms): ' ||
    left(regexp_replace(query, '\\s+', ' ', 'g'), 60) AS what
  FROM pg_stat_activity WHERE datname = current_database() AND state <> 'idle' AND pid <> pg_backend_pid()
  UNION ALL
  SELECT 'waiting for ' || l.locktype || ' ' || l.mode || coalesce(' on ' || c.relname, '')
  FROM pg_locks l LEFT JOIN pg_class c ON c.oid = l.relation
  WHERE NOT l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

/**
 * Samples what the backends of the database are doing (wait events, the statement, locks waited for) every
 * 20 ms until stopped: the share of samples of each. Counts the whole database: give the bench one of its own.
 */
export async function sampleWaits(url: string): Promise<() => Promise<string[]>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const seen = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query(ACTIVITY);
      samples++;
      for (const r of rows) seen.set(r.what, (seen.get(r.what) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return async () => {
    running = false;
    await loop;
    await client.end();
    return [...seen]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([what, n]) => `${((100 * n) / samples).toFixed(0).padStart(4)} % ${what}`);
  };
}
