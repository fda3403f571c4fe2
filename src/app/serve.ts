import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { createLogger, type AppContext } from '../context.js';
import { closeContext, createContext, type ContextOptions } from './boot.js';
import { features } from './features.js';
import { buildServer, type BuildOptions } from './server.js';
import { buildMetricsServer } from '../metrics/route.js';
import { simulatorWarnings } from '../carriers/simulator-warnings.js';
import { flushCompileCache } from '../lib/compile-cache.js';
import type { SmppServer, SmppServerOptions } from '../smpp-server/listener.js';

export interface RunningService {
  ctx: AppContext;
  app: FastifyInstance;
  /** The /metrics listener when METRICS_PORT is set. */
  metricsApp?: FastifyInstance;
  /** The SMPP listener when SMPP_SERVER_PORT or SMPP_SERVER_TLS_PORT is set, with its bound ports. */
  smpp?: { server: SmppServer; port?: number; tlsPort?: number };
  /** Graceful stop: no new requests, no new jobs, in-flight work finished, database closed. */
  stop(): Promise<void>;
}

/** Registers every feature's jobs on the context's worker. */
export function registerJobs(ctx: AppContext): void {
  for (const f of features) f.jobs?.(ctx.worker, ctx);
}

/** The service of `mensajero serve`: HTTP API, workers and simulators in one process. */
export async function startService(
  config: Config,
  opts: ContextOptions & BuildOptions & { listen?: boolean; worker?: boolean; smpp?: SmppServerOptions } = {},
): Promise<RunningService> {
  const ctx = await createContext(config, opts);
  registerJobs(ctx);
  const app = await buildServer(ctx, opts);
  const metricsApp = config.METRICS_PORT === undefined ? undefined : await buildMetricsServer(ctx);
  try {
    if (opts.listen !== false) {
      await app.listen({ port: config.PORT, host: config.HOST });
      await metricsApp?.listen({ port: config.METRICS_PORT, host: config.METRICS_HOST });
    } else {
      await app.ready();
      await metricsApp?.ready();
    }
  } catch (err) {
    await app.close();
    await metricsApp?.close();
    await closeContext(ctx);
    throw err;
  }
  let smpp: RunningService['smpp'];
  try {
    smpp = await startSmppServer(ctx, opts.smpp);
  } catch (err) {
    await app.close();
    await metricsApp?.close();
    await closeContext(ctx);
    throw err;
  }
  if (opts.worker !== false) ctx.worker.start();
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await smpp?.server.close();
      await app.close();
      await metricsApp?.close();
      await closeContext(ctx);
    })());
  return { ctx, app, metricsApp, smpp, stop };
}

/** The SMPP listener of this process, when configured (its module is loaded only then). */
async function startSmppServer(ctx: AppContext, options?: SmppServerOptions): Promise<RunningService['smpp']> {
  const { SMPP_SERVER_PORT, SMPP_SERVER_TLS_PORT } = ctx.config;
  if (SMPP_SERVER_PORT === undefined && SMPP_SERVER_TLS_PORT === undefined) return undefined;
  const { SmppServer } = await import('../smpp-server/listener.js');
  const server = new SmppServer(ctx, options);
  try {
    return { server, ...(await server.listen()) };
  } catch (err) {
    await server.close();
    throw err;
  }
}

/** The port a listening server is bound to. */
export function boundPort(app: FastifyInstance): number | undefined {
  const address = app.server.address();
  return address && typeof address === 'object' ? address.port : undefined;
}

/**
 * `mensajero serve`: one process, or with `workers` > 1 a primary that
 * migrates and runs that many copies sharing the port (cluster-primary.ts).
 * A cluster worker skips the migrations: its primary ran them.
 */
export async function serve(config: Config, workers = 1): Promise<void> {
  if (cluster.isPrimary && workers > 1) {
    const { runPrimary } = await import('./cluster-primary.js');
    return runPrimary(config, workers, createLogger(config.LOG_LEVEL));
  }
  const service = await startService(config, { migrate: cluster.isPrimary });
  // The bound port, not PORT: with PORT=0 the system picks a free one (tests read it from this line).
  const metricsPort = service.metricsApp && boundPort(service.metricsApp);
  service.ctx.log.info(
    {
      port: boundPort(service.app),
      ...(metricsPort !== undefined ? { metrics_port: metricsPort } : {}),
      ...(service.smpp?.port !== undefined ? { smpp_port: service.smpp.port } : {}),
      ...(service.smpp?.tlsPort !== undefined ? { smpp_tls_port: service.smpp.tlsPort } : {}),
      database: service.ctx.db.describe,
    },
    'mensajero is serving',
  );
  for (const warning of await simulatorWarnings(service.ctx)) service.ctx.log.warn(warning);
  // The modules of a serving process are all loaded by now: the next start reuses their compiled code.
  flushCompileCache();
  const shutdown = (signal: string) => {
    service.ctx.log.info({ signal }, 'shutting down: finishing in-flight requests and jobs');
    service.stop().then(
      () => process.exit(0),
      (err) => {
        service.ctx.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
