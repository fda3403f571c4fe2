import { randomUUID } from 'node:crypto';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RouteOptions,
} from 'fastify';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import sjson from 'secure-json-parse';
import { trustProxyOption } from '../config.js';
import { idempotencyHooks } from '../idempotency/hooks.js';
import type { AppContext } from '../context.js';
import { authenticate } from '../auth/authenticate.js';
import { ApiError } from '../http/errors.js';
import { messageFor } from '../http/codes.js';
import { features } from './features.js';
import { documentApiRoute, documentRoute, openapiDocument, swaggerOptions } from '../http/openapi.js';
import { metricsRoute } from '../metrics/route.js';
import { acceptingAs, byApiKey } from '../messaging/accepted-by.js';
import { asHttpError } from '../features/sms/refusals.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A provider's signed callback (WhatsApp Cloud API, TwiML, Stripe): public, but bodies up to PROVIDER_WEBHOOK_BODY_LIMIT_BYTES. */
    providerWebhook?: boolean;
  }
}

/**
 * Builds the HTTP server: body parsing, envelopes, request ids, metrics,
 * OpenAPI, and every feature's routes (the API ones behind the apikey hook).
 */
export interface BuildOptions {
  /** Extra authenticated routes (tests use it to exercise the common layer). */
  extraApiRoutes?: (api: FastifyInstance) => void;
}

export async function buildServer(ctx: AppContext, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log as unknown as FastifyBaseLogger,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: ctx.config.BODY_LIMIT_BYTES,
    trustProxy: trustProxyOption(ctx.config.TRUST_PROXY),
    // One log line per request costs more than the request itself; metrics count them instead.
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { ignoreTrailingSlash: true },
    // The router's own refusals (a malformed percent-encoding, a parameter over 100 characters) in the common envelope.
    frameworkErrors: (error, _request, reply) => {
      const status = error.statusCode ?? 400;
      const code = status === 414 ? 'url_too_long' : 'bad_url';
      (reply as FastifyReply).code(status).send({ success: false, message: messageFor(code), status, code });
    },
  });

  await bodyParsers(app, ctx);
  requestHooks(app, ctx);
  errorHandlers(app);
  await documentationAndOperations(app, ctx);
  await featureRoutes(app, ctx, opts);
  return app;
}

/** JSON and form bodies, parsed once; validation is each handler's. */
async function bodyParsers(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // Route schemas document the API (OpenAPI); the rules, with the spec's
  // codes, are applied by each handler's zod schema (src/http/validate.ts).
  app.setValidatorCompiler(() => (data) => ({ value: data }));
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  // JSON and form bodies only: Fastify would otherwise hand text/plain bodies to the handlers as strings.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, {});
    try {
      done(null, sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }));
    } catch {
      done(new ApiError(400, 'invalid_json'), undefined);
    }
  });
  await app.register(formbody, { bodyLimit: ctx.config.BODY_LIMIT_BYTES });
}

/** Every request's id header and metrics. */
function requestHooks(app: FastifyInstance, ctx: AppContext): void {
  // Hooks that never wait take `done` rather than being async: every request runs them, and a promise each costs more than their work.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    ctx.metrics.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    ctx.metrics.latency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });
}

/** Errors and unknown routes in the common envelope; an unexpected error is logged and answered as server_01. */
function errorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((thrown: FastifyError | ApiError, request, reply) => {
    // A refusal of the send path (chat-app, voice, payment links, SMS) is answered with its /sms/send code.
    const error = asHttpError(thrown);
    if (error instanceof ApiError) {
      return reply.code(error.status).headers(error.headers).send(error.body(request.id));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code =
        status === 413
          ? 'body_too_large'
          : status === 415
            ? 'unsupported_media_type'
            : error.code === 'FST_ERR_CTP_INVALID_JSON_BODY'
              ? 'invalid_json'
              : 'invalid_request';
      return reply.code(status).send({ success: false, message: messageFor(code), status, code });
    }
    request.log.error({ err: error, reqId: request.id, route: request.routeOptions.url }, 'unexpected error');
    return reply.code(500).send({
      success: false,
      message: messageFor('server_01'),
      status: 500,
      code: 'server_01',
      request_id: request.id,
    });
  });
  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).send({ success: false, message: messageFor('not_found'), status: 404, code: 'not_found' });
  });
}

/** The OpenAPI document and its pages; /healthz, /readyz and, without a port of its own, /metrics. */
async function documentationAndOperations(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.addHook('onRoute', documentRoute);
  await app.register(swagger, swaggerOptions());
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => openapiDocument(app, ctx));

  // Operations endpoints, not part of the API document (docs/operators/configuration.md).
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  // Asks the database now, on a connection of its own, and answers within a second whatever it does.
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) =>
    (await ctx.liveness.probe()) ? { status: 'ready' } : reply.code(503).send({ status: 'unavailable' }),
  );
  // On the API port unless METRICS_PORT gives it a listener of its own (src/metrics/route.ts).
  if (ctx.config.METRICS_PORT === undefined) metricsRoute(app, ctx);
}

/** Each feature's public routes (small bodies), then its API routes behind the apikey hook. */
async function featureRoutes(app: FastifyInstance, ctx: AppContext, opts: BuildOptions): Promise<void> {
  // Public routes (no key: short links, read links, payment pages) take small bodies only, so nobody can make the server parse megabytes for free.
  // Providers' callbacks carry whole messages and events: they take PROVIDER_WEBHOOK_BODY_LIMIT_BYTES, also checked before parsing.
  const publicLimit = ctx.config.PUBLIC_BODY_LIMIT_BYTES;
  for (const feature of features) {
    if (!feature.publicRoutes) continue;
    await app.register(async (scope) => {
      scope.addHook('onRoute', (route) => {
        route.bodyLimit = route.config?.providerWebhook
          ? ctx.config.PROVIDER_WEBHOOK_BODY_LIMIT_BYTES
          : Math.min(route.bodyLimit ?? publicLimit, publicLimit);
      });
      await feature.publicRoutes!(scope, ctx);
    });
  }
  await app.register(async (api) => {
    api.addHook('onRequest', authenticate(ctx));
    api.addHook('onRoute', documentApiRoute);
    api.addHook('onRoute', acceptedByTheKey);
    idempotencyHooks(api, ctx);
    for (const feature of features) if (feature.routes) await feature.routes(api, ctx);
    opts.extraApiRoutes?.(api);
  });
}

/** An API route's handler runs with what it submits recorded as accepted by the request's API key (accepted-by.ts). */
function acceptedByTheKey(route: RouteOptions): void {
  const handler = route.handler;
  route.handler = function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    const keyId = request.account?.key_id;
    return keyId === undefined
      ? handler.call(this, request, reply)
      : acceptingAs(byApiKey(keyId), () => handler.call(this, request, reply));
  };
}
