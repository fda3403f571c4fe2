import type { Harness } from './harness.js';
import { providerSettings, sealProviderSecrets } from '../../src/carriers/providers/cli-options.js';

/** Secrets as `carriers add … --secrets -` reads them from standard input: key=value lines. */
export const secretLines = (secrets: Record<string, string>) => () =>
  Object.entries(secrets)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');

/**
 * Adds a provider connector as `carriers add <type>` stores it and makes it
 * the default route of its channel (in place of the simulator), then waits
 * for a carrier round that sees both.
 */
export async function routeToProvider(
  h: Harness,
  c: {
    name: string;
    type: 'whatsapp-cloud' | 'twiml-voice';
    channel: 'chatapp' | 'voice';
    options: Record<string, unknown>;
    secrets: Record<string, string>;
  },
): Promise<void> {
  const now = Date.now();
  const settings = providerSettings(c.type, c.options);
  const sealed = sealProviderSecrets(h.ctx, c.type, '-', secretLines(c.secrets));
  await h.ctx.db.kysely
    .insertInto('carriers')
    .values({
      name: c.name,
      type: c.type,
      enabled: 1,
      settings: JSON.stringify(settings),
      password_enc: sealed,
      version: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await h.ctx.db.kysely
    .deleteFrom('carrier_routes')
    .where('channel', '=', c.channel)
    .where('prefix', '=', '')
    .where('account_id', '=', 0)
    .execute();
  await h.ctx.db.kysely
    .insertInto('carrier_routes')
    .values({ channel: c.channel, prefix: '', account_id: 0, carriers: JSON.stringify([c.name]), created_at: now })
    .execute();
  await h.ctx.carriers.manager.refreshNow();
}
