import { existsSync } from 'node:fs';
import type { BaseContext } from '../context.js';
import { CliError } from '../cli/runner.js';
import {
  deleteCarrier,
  findCarrier,
  insertCarrier,
  listRoutes,
  publicCarrier,
  updateCarrierSettings,
} from './index.js';
import { KINDS, kindOf, parseSettings, type KindType } from './kinds.js';
import { deleteQuality, qualityOf, setQuality, type QualityChangeRequest } from './quality-settings.js';

// The changes to connectors that `carriers add|set|remove` and the operator API make: each front end reads its own
// input into settings (checked by the kind's schema) and a sealed secret, then calls these. A refusal is a CliError,
// whose message the operator API answers as well.

const NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/i;

/** Settings whose CA file (an SMPP connector's tls_ca) exists on this machine. */
function withCaFile(settings: Record<string, unknown>): Record<string, unknown> {
  if (typeof settings.tls_ca === 'string' && !existsSync(settings.tls_ca))
    throw new CliError(`--tls-ca: no file ${settings.tls_ca}`, { code: 'tls_ca', params: { file: settings.tls_ca } });
  return settings;
}

export async function requireCarrier(ctx: Pick<BaseContext, 'db'>, name: string) {
  const row = await findCarrier(ctx.db.kysely, name);
  if (!row) throw new CliError(`no carrier named ${name}`, { code: 'carrier_missing', params: { name } });
  return row;
}

/** A kind's settings checked by its schema; a refusal as one operator-readable line. */
export function kindSettings(type: KindType, input: Record<string, unknown>): Record<string, unknown> {
  try {
    return parseSettings(KINDS[type], input) as Record<string, unknown>;
  } catch (err) {
    // The setting the first issue names, for a front end's own words (none when the issue is the whole object's).
    const setting = KINDS[type].settings.safeParse(input).error?.issues[0]?.path.join('.') ?? '';
    throw new CliError(
      (err as Error).message,
      setting === '' ? undefined : { code: 'carrier_setting', params: { setting } },
    );
  }
}

/** A provider's secrets checked by its kind's schema (only their names ever reach a message), as one JSON text. */
export function providerSecrets(type: KindType, secrets: unknown): string {
  const r = KINDS[type].secrets.safeParse(secrets);
  if (!r.success)
    throw new CliError(`secrets: ${r.error.issues.map((i) => `${i.path.join('.')} is required`).join('; ')}`);
  return JSON.stringify(r.data);
}

/** A new connector of a configured kind, as `carriers add` prints it (never its secret). */
export async function createCarrier(
  ctx: Pick<BaseContext, 'db'>,
  c: { type: string; name: string; settings: () => Record<string, unknown>; sealedSecret: () => string | null },
) {
  if (!kindOf(c.type)) throw new CliError('carriers add takes the type smpp, whatsapp-cloud or twiml-voice');
  if (!NAME.test(c.name)) throw new CliError('--name is 1 to 40 letters, digits, - or _');
  if (await findCarrier(ctx.db.kysely, c.name)) throw new CliError(`a carrier named ${c.name} exists`);
  const settings = withCaFile(c.settings());
  const passwordEnc = c.sealedSecret();
  await insertCarrier(ctx.db.kysely, { name: c.name, type: c.type as KindType, settings, passwordEnc });
  return publicCarrier(await requireCarrier(ctx, c.name));
}

/**
 * New settings (over the stored ones) and, unless undefined, a new secret, then the quality settings; as `carriers
 * set` prints the connector. `settings` is undefined when only the quality settings change.
 */
export async function changeCarrier(
  ctx: Pick<BaseContext, 'db'>,
  name: string,
  c: {
    settings?: (type: KindType, stored: Record<string, unknown>) => Record<string, unknown>;
    sealedSecret?: (type: KindType) => string | undefined;
    quality: QualityChangeRequest;
  },
) {
  const row = await requireCarrier(ctx, name);
  if (c.settings) {
    if (!kindOf(row.type))
      throw new CliError(`${name} has no settings to change`, { code: 'carrier_fixed', params: { name } });
    const type = row.type as KindType;
    const settings = withCaFile(c.settings(type, JSON.parse(row.settings) as Record<string, unknown>));
    await updateCarrierSettings(ctx.db.kysely, row.id, settings, c.sealedSecret?.(type));
  }
  await setQuality(ctx.db.kysely, name, c.quality);
  return { ...publicCarrier(await requireCarrier(ctx, name)), ...(await qualityOf(ctx.db.kysely, name)) };
}

/** Removes a connector no route names, with its quality settings. */
export async function removeCarrier(ctx: Pick<BaseContext, 'db'>, name: string) {
  const row = await requireCarrier(ctx, name);
  const using = (await listRoutes(ctx.db.kysely)).filter((r) => (JSON.parse(r.carriers) as string[]).includes(name));
  if (using.length > 0)
    throw new CliError(`${name} is in ${using.length} route(s): remove or change them first (routes list)`);
  await deleteCarrier(ctx.db.kysely, row.id);
  await deleteQuality(ctx.db.kysely, name);
  return { removed: true };
}
