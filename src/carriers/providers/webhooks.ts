import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import type { CarrierSink } from '../adapter.js';

defineMessages({
  provider_01: 'No such provider connector',
  provider_02: 'The request signature is missing or wrong',
  provider_03: 'The verify token does not match',
  provider_04: 'The webhook body is unreadable',
});

/** Constant-time equality of two strings (signatures, tokens). */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Refuses a provider's request: handed to the sink (counted for `carriers rejections`) and answered in the spec's envelope. */
export async function refuse(
  sink: Pick<CarrierSink, 'rejected'>,
  request: FastifyRequest,
  carrier: string,
  status: number,
  code: string,
  reason: string,
): Promise<never> {
  await sink.rejected({ carrier, reason, remoteAddress: request.ip });
  throw new ApiError(status, code);
}

/** Routes of one provider that need the raw body (signatures are over the bytes as sent). */
export function rawJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
}
