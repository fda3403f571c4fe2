import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { AppContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { parse } from '../http/validate.js';
import { actorOf } from './guard.js';
import { AccountId } from './schemas.js';
import {
  addMoRouteAs,
  addSenderAs,
  addSmppUserAs,
  auditAs,
  removeMoRouteAs,
  removeSenderAs,
  removeSmppUserAs,
  setAccountAs,
  setSmppUserAs,
} from './account-writes.js';
import {
  addCarrierAs,
  addRouteAs,
  changeCarrierAs,
  removeCarrierAs,
  removeRouteAs,
  setCostAs,
} from './carrier-writes.js';
import {
  AccountSettingsChange,
  AuditQuery,
  CarrierChange,
  CarrierName,
  CostBody,
  CostKey,
  MoRouteId,
  NewCarrier,
  NewMoRoute,
  NewRoute,
  NewSender,
  NewSmppUser,
  RouteId,
  SenderQuery,
  SmppUserChange,
  SystemId,
} from './write-schemas.js';

const HIDDEN = { schema: { hide: true } };

/** A path parameter that cannot name anything (`/routes/0x1`) names nothing: 404, as an unknown one. */
function named<S extends z.ZodType>(schema: S, params: unknown, code: string): z.output<S> {
  const r = schema.safeParse(params);
  if (!r.success) throw new ApiError(404, code);
  return r.data;
}

/**
 * What the CLI configures, over HTTP (docs/operators/operator-api.md): connectors, routes, costs, SMPP users, senders,
 * MO routes and account settings, each through the service its command calls, recorded in the audit log; and the
 * audit log itself, by pages.
 */
export function writeRoutes(scope: FastifyInstance, ctx: AppContext): void {
  const accountId = (params: unknown) => named(AccountId, params, 'op_account_missing').id;
  const carrier = (params: unknown) => named(CarrierName, params, 'op_carrier_missing').name;

  scope.post('/carriers', HIDDEN, async (request, reply) => {
    const body = parse(NewCarrier, request.body, 'op_carrier_invalid');
    return reply.code(201).send(await addCarrierAs(ctx, actorOf(request), body));
  });
  scope.patch('/carriers/:name', HIDDEN, async (request) =>
    changeCarrierAs(
      ctx,
      actorOf(request),
      carrier(request.params),
      parse(CarrierChange, request.body, 'op_carrier_invalid'),
    ),
  );
  scope.delete('/carriers/:name', HIDDEN, async (request) =>
    removeCarrierAs(ctx, actorOf(request), carrier(request.params)),
  );
  scope.put('/carriers/:name/costs/:prefix', HIDDEN, async (request) => {
    const key = parse(CostKey, request.params, 'op_cost_invalid');
    const { cost } = parse(CostBody, request.body, 'op_cost_invalid');
    return setCostAs(ctx, actorOf(request), key.name, key.prefix, cost);
  });
  scope.post('/routes', HIDDEN, async (request, reply) => {
    const body = parse(NewRoute, request.body, 'op_route_invalid');
    return reply.code(201).send(await addRouteAs(ctx, actorOf(request), body));
  });
  scope.delete('/routes/:id', HIDDEN, async (request) =>
    removeRouteAs(ctx, actorOf(request), named(RouteId, request.params, 'op_route_missing').id),
  );

  scope.post('/smpp-users', HIDDEN, async (request, reply) => {
    const body = parse(NewSmppUser, request.body, 'op_smpp_user_invalid');
    return reply.code(201).send(await addSmppUserAs(ctx, actorOf(request), body));
  });
  scope.patch('/smpp-users/:system_id', HIDDEN, async (request) => {
    const { system_id } = named(SystemId, request.params, 'op_smpp_user_missing');
    return setSmppUserAs(ctx, actorOf(request), system_id, parse(SmppUserChange, request.body, 'op_smpp_user_invalid'));
  });
  scope.delete('/smpp-users/:system_id', HIDDEN, async (request) =>
    removeSmppUserAs(ctx, actorOf(request), named(SystemId, request.params, 'op_smpp_user_missing').system_id),
  );
  scope.post('/accounts/:id/senders', HIDDEN, async (request, reply) => {
    const id = accountId(request.params);
    const body = parse(NewSender, request.body, 'op_sender_invalid');
    return reply.code(201).send(await addSenderAs(ctx, actorOf(request), id, body));
  });
  scope.delete('/accounts/:id/senders', HIDDEN, async (request) => {
    const id = accountId(request.params);
    return removeSenderAs(ctx, actorOf(request), id, parse(SenderQuery, request.query, 'op_sender_invalid').sender);
  });
  scope.post('/mo-routes', HIDDEN, async (request, reply) => {
    const body = parse(NewMoRoute, request.body, 'op_mo_route_invalid');
    return reply.code(201).send(await addMoRouteAs(ctx, actorOf(request), body));
  });
  scope.delete('/mo-routes/:id', HIDDEN, async (request) =>
    removeMoRouteAs(ctx, actorOf(request), named(MoRouteId, request.params, 'op_mo_route_missing').id),
  );
  scope.patch('/accounts/:id', HIDDEN, async (request) => {
    const id = accountId(request.params);
    return setAccountAs(ctx, actorOf(request), id, parse(AccountSettingsChange, request.body, 'op_settings_invalid'));
  });
  scope.get('/audit', HIDDEN, async (request) => auditAs(ctx, parse(AuditQuery, request.query, 'op_audit_invalid')));
}
