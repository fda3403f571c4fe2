import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parse } from '../http/validate.js';
import { actorOf } from './guard.js';
import { MarginsQuery, NewPrice, PriceKey } from './schemas.js';
import {
  carriersView,
  marginsView,
  pricesView,
  removePriceAs,
  routesView,
  setPriceAs,
  smppUsersView,
} from './catalog.js';

const HIDDEN = { schema: { hide: true } };

/** Prices (read, set, remove), carriers with their state, routes, SMPP users and the margins report. */
export function catalogRoutes(scope: FastifyInstance, ctx: AppContext): void {
  scope.get('/prices', HIDDEN, async () => pricesView(ctx.db));
  scope.put('/prices', HIDDEN, async (request) =>
    setPriceAs(ctx.db, actorOf(request), parse(NewPrice, request.body, 'op_price_invalid')),
  );
  scope.delete('/prices', HIDDEN, async (request) =>
    removePriceAs(ctx.db, actorOf(request), parse(PriceKey, request.query, 'op_price_invalid')),
  );
  scope.get('/carriers', HIDDEN, async () => carriersView(ctx));
  scope.get('/routes', HIDDEN, async () => routesView(ctx.db));
  scope.get('/smpp-users', HIDDEN, async () => smppUsersView(ctx.db));
  scope.get('/reports/margins', HIDDEN, async (request) =>
    marginsView(ctx, parse(MarginsQuery, request.query, 'op_margins_invalid')),
  );
}
