import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { messageFor } from '../http/codes.js';

/** Authorization: Bearer <token>, compared in constant time. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '';
  const digest = (v: string) => createHash('sha256').update(v).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** GET /metrics (Prometheus text), behind METRICS_TOKEN when it is set. */
export function metricsRoute(app: FastifyInstance, ctx: Pick<AppContext, 'config' | 'metrics'>): void {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (
      ctx.config.METRICS_TOKEN !== undefined &&
      !bearerMatches(request.headers.authorization, ctx.config.METRICS_TOKEN)
    ) {
      throw new ApiError(401, 'metrics_unauthorized', undefined, {}, { 'WWW-Authenticate': 'Bearer' });
    }
    reply.header('content-type', ctx.metrics.registry.contentType);
    return ctx.metrics.render();
  });
}

/**
 * The listener of METRICS_HOST:METRICS_PORT: /metrics and nothing else, so
 * the metrics can stay on an internal address while the API port is public
 * (the API port then answers /metrics with 404).
 */
export async function buildMetricsServer(
  ctx: Pick<AppContext, 'config' | 'log' | 'metrics'>,
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ApiError) return reply.code(error.status).headers(error.headers).send(error.body(request.id));
    request.log.error({ err: error }, 'metrics failed');
    return reply.code(500).send({ success: false, message: messageFor('server_01'), status: 500, code: 'server_01' });
  });
  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).send({ success: false, message: messageFor('not_found'), status: 404, code: 'not_found' });
  });
  metricsRoute(app, ctx);
  return app;
}
