import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/engine.js';
import type { DatabaseLiveness } from '../db/liveness.js';
import { queueStats } from '../jobs/queue.js';

/** Prometheus metrics of one process; features add theirs to `registry`. */
export class Metrics {
  readonly registry = new Registry();
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly latency: Histogram<'method' | 'route'>;

  constructor(db: Db, liveness?: Pick<DatabaseLiveness, 'reachable'>) {
    collectDefaultMetrics({ register: this.registry, prefix: 'mensajero_' });
    this.requests = new Counter({
      name: 'mensajero_http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'mensajero_http_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [this.registry],
    });
    const depth = new Gauge({
      name: 'mensajero_job_queue_depth',
      help: 'Jobs by kind and state',
      labelNames: ['kind', 'state'],
      registers: [this.registry],
    });
    const age = new Gauge({
      name: 'mensajero_job_queue_oldest_age_seconds',
      help: 'Age of the oldest due pending job by kind (0 when none is due)',
      labelNames: ['kind'],
      registers: [this.registry],
    });
    this.databaseUp = new Gauge({
      name: 'mensajero_database_up',
      help: 'Whether this process reached its database at its last check, every second (1) or not (0)',
      registers: [this.registry],
    });
    this.liveness = liveness;
    // Queue figures are read from the database at scrape time, so every process reports the shared queue.
    const collect = async () => {
      depth.reset();
      age.reset();
      const now = Date.now();
      for (const s of await queueStats(db)) {
        depth.set({ kind: s.kind, state: s.state }, s.count);
        if (s.state === 'pending')
          age.set(
            { kind: s.kind },
            s.oldest_run_at !== null && s.oldest_run_at < now ? (now - s.oldest_run_at) / 1000 : 0,
          );
      }
    };
    this.beforeScrape.push(collect);
  }

  readonly beforeScrape: Array<() => Promise<void>> = [];
  private readonly databaseUp: Gauge;
  private readonly liveness?: Pick<DatabaseLiveness, 'reachable'>;

  /** While the database does not answer, what is read from it keeps its last values, so the scrape still answers. */
  async render(): Promise<string> {
    const up = this.liveness?.reachable !== false;
    this.databaseUp.set(up ? 1 : 0);
    if (up) for (const f of this.beforeScrape) await f();
    return this.registry.metrics();
  }
}

declare module '../context.js' {
  interface AppContext {
    metrics: Metrics;
  }
}
