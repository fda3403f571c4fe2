import type { AppContext } from '../../context.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError, ok } from '../../http/errors.js';
import { jsonSchema, text } from '../../http/fields.js';
import { defineMessages } from '../../http/codes.js';
import { parse } from '../../http/validate.js';
import { latestWaiting, recordReply } from '../../messaging/replies.js';
import { findRoute, firstWord, recordRoutedReply } from '../../messaging/routed-replies.js';
import { SIMULATOR } from '../../carriers/index.js';

defineMessages({
  simulator_01: 'reply_recorded',
  simulator_02: 'number is required: 10 digits, or the full number with its country code',
  simulator_03: 'response is required (1 to 1000 characters)',
  simulator_04:
    'This account never sent a message through the simulator to that number, and none of its MO routes takes the reply',
  simulator_05: 'to is the number the customer writes to: 3 to 15 digits',
});

const Body = z.object({
  number: text('simulator_02').pipe(z.string().regex(/^\d{10,15}$/, { error: 'simulator_02' })),
  response: text('simulator_03').pipe(
    z.string().min(1, { error: 'simulator_03' }).max(1000, { error: 'simulator_03' }),
  ),
  country_code: text().optional(),
  to: text('simulator_05')
    .pipe(z.string().regex(/^\d{3,15}$/, { error: 'simulator_05' }))
    .optional(),
});

export function simulatorRoutes(api: FastifyInstance, ctx: AppContext) {
  if (!ctx.config.SIMULATORS) return;
  api.post(
    '/simulator/replies',
    { schema: { tags: ['simulator'], summary: 'Simulate a customer reply', body: jsonSchema(Body) } },
    async (request) => {
      const body = parse(Body, request.body, 'simulator_02');
      const number = body.number.length === 10 ? `${body.country_code ?? '52'}${body.number}` : body.number;
      const reply = { number, text: body.response, at: Date.now(), destination: body.to };
      const accountId = request.account.id;
      // Only what the simulator carried, or what is on its way to it (every connector its route may try is the
      // simulator): never invented replies to a real carrier's messages.
      const waiting = await latestWaiting(ctx.db.kysely, accountId, number);
      const next = waiting ? ctx.carriers.connectorsFor({ ...waiting, accountId }) : [];
      const toSimulator = waiting !== undefined && next.length > 0 && next.every((c) => c === SIMULATOR);
      const reference = await recordReply(ctx, {
        ...reply,
        accountId,
        ...(toSimulator ? { messageId: waiting.id } : { carrier: SIMULATOR }),
      });
      if (reference) {
        ctx.worker.nudge();
        return ok('simulator_01', 'reply_recorded', { reference });
      }
      const keyword = firstWord(body.response);
      const route = await findRoute(ctx.db.kysely, { number: body.to ?? '', keyword, accountId: request.account.id });
      if (!route) throw new ApiError(404, 'simulator_04');
      await recordRoutedReply(ctx, route, {
        source: number,
        destination: body.to ?? '',
        text: reply.text,
        at: reply.at,
      });
      ctx.worker.nudge();
      return ok('simulator_01', 'reply_recorded', { reference: null, route_id: route.routeId });
    },
  );
}
