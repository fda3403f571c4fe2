import {
  changeCarrier,
  createCarrier,
  kindSettings,
  providerSecrets,
  removeCarrier,
} from '../carriers/connector-admin.js';
import { setCost } from '../carriers/cost-admin.js';
import { findCarrier } from '../carriers/index.js';
import { KINDS, type KindType } from '../carriers/kinds.js';
import { qualityRequest } from '../carriers/quality-commands.js';
import { addRoute, removeRouteById } from '../carriers/route-admin.js';
import { CliError } from '../cli/runner.js';
import type { AppContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { encrypt } from '../lib/secrets.js';
import { accountById } from './service.js';
import { recordApiChange, refusedAs } from './refusals.js';
import type { ApiActor } from './schemas.js';
import { QUALITY_FIELDS } from './write-schemas.js';

type Ctx = Pick<AppContext, 'db' | 'secrets'>;
type Body = Record<string, unknown>;

async function carrierNamed(ctx: Ctx, name: string) {
  const row = await findCarrier(ctx.db.kysely, name);
  if (!row) throw new ApiError(404, 'op_carrier_missing');
  return row;
}

/** The secret of a connector of `type` from a body, sealed; undefined when the body gives none. */
function sealedSecret(ctx: Ctx, type: KindType, body: Body): string | undefined {
  const wrong = type === 'smpp' ? 'secrets' : 'password';
  if (body[wrong] !== undefined) throw new CliError(`${wrong}: a ${type} connector takes no ${wrong}`);
  if (type === 'smpp')
    return body.password === undefined ? undefined : encrypt(ctx.secrets.keyEncryption, String(body.password));
  return body.secrets === undefined
    ? undefined
    : encrypt(ctx.secrets.keyEncryption, providerSecrets(type, body.secrets));
}

/** POST /carriers: `carriers add` (the kind's settings, its secret sealed), recorded; never the secret in the answer. */
export async function addCarrierAs(ctx: Ctx, by: ApiActor, body: Body) {
  // NewCarrier took the kind among KIND_TYPES and the name as text.
  const { kind: type, name: text, password: _password, secrets: _secrets, ...settings } = body;
  const [kind, name] = [type as KindType, String(text)];
  if (await findCarrier(ctx.db.kysely, name)) throw new ApiError(409, 'op_carrier_exists');
  const made = await refusedAs('op_carrier_invalid', () =>
    createCarrier(ctx, {
      type: kind,
      name,
      settings: () => kindSettings(kind, settings),
      sealedSecret: () => sealedSecret(ctx, kind, body) ?? null,
    }),
  );
  await recordApiChange(ctx.db.kysely, by, { action: 'carriers.add', target: name, detail: body });
  return made;
}

/** PATCH /carriers/{name}: `carriers set`; only settings of the connector's kind, each over the stored one. */
export async function changeCarrierAs(ctx: Ctx, by: ApiActor, name: string, body: Body) {
  await carrierNamed(ctx, name);
  const { password, secrets, ...rest } = body;
  const given = Object.fromEntries(Object.entries(rest).filter(([k]) => !Object.hasOwn(QUALITY_FIELDS, k)));
  const connector = Object.keys(given).length > 0 || password !== undefined || secrets !== undefined;
  const changed = await refusedAs('op_carrier_invalid', () => {
    const quality = qualityRequest(
      Object.fromEntries(
        Object.entries(QUALITY_FIELDS)
          .filter(([field]) => body[field] !== undefined)
          .map(([field, option]) => [option, String(body[field])]),
      ),
    );
    return changeCarrier(ctx, name, {
      quality,
      ...(connector
        ? {
            settings: (type, stored) => {
              const known = Object.keys((KINDS[type].settings as unknown as { shape: object }).shape);
              const foreign = Object.keys(given).find((k) => !known.includes(k));
              if (foreign)
                throw new CliError(`${foreign} is not a setting of a ${type} connector`, {
                  code: 'carrier_foreign_setting',
                  params: { setting: foreign },
                });
              return kindSettings(type, { ...stored, ...given });
            },
            sealedSecret: (type) => sealedSecret(ctx, type, body),
          }
        : {}),
    });
  });
  await recordApiChange(ctx.db.kysely, by, { action: 'carriers.set', target: name, detail: body });
  return changed;
}

/** DELETE /carriers/{name}: `carriers remove`, refused while a route names it. */
export async function removeCarrierAs(ctx: Ctx, by: ApiActor, name: string) {
  await carrierNamed(ctx, name);
  const removed = await removeCarrier(ctx, name).catch((err) => {
    throw err instanceof CliError ? new ApiError(409, 'op_carrier_in_use', err.message) : err;
  });
  await recordApiChange(ctx.db.kysely, by, { action: 'carriers.remove', target: name, detail: { name } });
  return removed;
}

/** PUT /carriers/{name}/costs/{prefix}: `carriers costs set`. */
export async function setCostAs(ctx: Ctx, by: ApiActor, name: string, prefix: string, cost: number | string) {
  await carrierNamed(ctx, name);
  const set = await refusedAs('op_cost_invalid', () => setCost(ctx, name, prefix, String(cost)));
  await recordApiChange(ctx.db.kysely, by, { action: 'carriers.costs.set', target: name, detail: set });
  return set;
}

/** POST /routes: `routes add`, the account by id; the answer carries the route's id (DELETE /routes/{id}). */
export async function addRouteAs(
  ctx: Ctx,
  by: ApiActor,
  body: {
    channel: string;
    prefix: string;
    carriers: string[];
    account_id?: number | null;
    strategy?: string;
    weights?: number[];
  },
) {
  const account = body.account_id == null ? null : await accountById(ctx.db.kysely, body.account_id);
  const route = await refusedAs('op_route_invalid', () =>
    addRoute(ctx, {
      channel: body.channel,
      prefix: body.prefix,
      carriers: body.carriers,
      accountId: account?.id ?? 0,
      account: account?.email ?? null,
      strategy: body.strategy,
      weights: body.weights?.map(String),
    }),
  );
  const target = `${body.channel}:${body.prefix}`;
  await recordApiChange(ctx.db.kysely, by, { action: 'routes.add', target, detail: route });
  return route;
}

/** DELETE /routes/{id}. */
export async function removeRouteAs(ctx: Ctx, by: ApiActor, id: number) {
  if (!(await removeRouteById(ctx, id))) throw new ApiError(404, 'op_route_missing');
  await recordApiChange(ctx.db.kysely, by, { action: 'routes.remove', target: `route:${id}`, detail: { id } });
  return { removed: true };
}
