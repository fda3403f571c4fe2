import type { FastifyInstance, RouteOptions } from 'fastify';
import type { SwaggerOptions } from '@fastify/swagger';
import type { Config } from '../config.js';

/**
 * The OpenAPI document (/openapi.json): what @fastify/swagger builds from
 * the route schemas, completed so real tools accept it (a validator, a
 * linter, client generators): every operation gets an operationId, its
 * error responses and the form-encoded body beside JSON.
 */
export function swaggerOptions(): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Mensajero',
        version: '0.1.0',
        description: 'Messaging service API: SMS, RCS, chat-app, voice, OTP, contacts, wallets, loyalty, webhooks.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      components: {
        securitySchemes: {
          apikey: { type: 'apiKey' as const, in: 'header' as const, name: 'apikey' },
          token: {
            type: 'apiKey' as const,
            in: 'header' as const,
            name: 'token',
            description: 'Deprecated: a token of POST /auth (or the API key itself); answers carry Deprecation: true',
          },
        },
      },
      security: [{ apikey: [] }, { token: [] }],
    },
  };
}

/** The document as served: `servers` is this deployment's public address (PUBLIC_BASE_URL). */
export function openapiDocument(app: FastifyInstance, ctx: { config: Config }): Record<string, unknown> {
  return {
    ...(app.swagger() as unknown as Record<string, unknown>),
    servers: [{ url: ctx.config.publicBaseUrl, description: 'this deployment (PUBLIC_BASE_URL)' }],
  };
}

const ENVELOPE = {
  type: 'object',
  description: 'the common error envelope',
  properties: {
    success: { type: 'boolean', enum: [false] },
    message: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string' },
  },
  required: ['success', 'message', 'status', 'code'],
};
const error = (description: string) => ({ ...ENVELOPE, description });
const SUCCESS = {
  type: 'object',
  description: 'the common envelope, success true',
  properties: {
    success: { type: 'boolean' },
    message: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string' },
  },
  additionalProperties: true,
};

/** getSmsSend, postProtectedFormatPhonesVerificationStart: the method and the words of the path. */
export function operationId(method: string, url: string): string {
  const words = url.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
}

type Schema = NonNullable<RouteOptions['schema']> & {
  hide?: boolean;
  operationId?: string;
  consumes?: string[];
  response?: Record<string, unknown>;
};

/** onRoute for every route: operationId, JSON and form bodies, and a 4XX answer when the route lists none. */
export function documentRoute(route: RouteOptions): void {
  const schema = route.schema as Schema | undefined;
  if (!schema || schema.hide) return;
  const method = Array.isArray(route.method) ? route.method[0] : route.method;
  const response = { ...(schema.response ?? {}) };
  if (!Object.keys(response).some((s) => s.startsWith('4')))
    response['4xx'] = error('invalid request: the endpoint-specific code tells which rule');
  if (!Object.keys(response).some((s) => s.startsWith('2') || s.startsWith('3'))) response['200'] = SUCCESS;
  // A new object: route definitions may share one schema (/chatapp/send and /whatsapp/send).
  route.schema = {
    ...schema,
    operationId: schema.operationId ?? operationId(method, route.url),
    ...(schema.body ? { consumes: schema.consumes ?? ['application/json', 'application/x-www-form-urlencoded'] } : {}),
    response,
  };
}

/** onRoute for the routes behind the apikey hook: the authentication and rate-limit answers. */
export function documentApiRoute(route: RouteOptions): void {
  const schema = route.schema as Schema | undefined;
  if (!schema || schema.hide) return;
  const response: Record<string, unknown> = { ...(schema.response ?? {}) };
  response['401'] ??= error('auth_05: API key missing, invalid, rotated or its account archived');
  response['403'] ??= error('auth_04: the caller address is not in the key allow-list');
  if (route.config?.sendLimited)
    response['429'] ??= error('rate_01: message-sending requests over the per-second limit (Retry-After)');
  route.schema = { ...schema, response };
}
