import type { Config } from '../config.js';
import type { Db } from '../db/engine.js';
import { DEPLOYMENT, listPrefixPrices } from '../features/prices/service.js';

/** Mexico's destinations are what the default channel prices are for. */
const PRICED_BY_DEFAULT = '52';

/**
 * The accepted country codes (SMS_COUNTRY_CODES) that no deployment SMS price covers whole (a prefix price of the
 * code itself or of a shorter prefix of it): their messages cost the default SMS price, which is Mexico's.
 */
export async function unpricedCountryCodes(db: Db, config: Pick<Config, 'SMS_COUNTRY_CODES'>): Promise<string[]> {
  const prefixes = (await listPrefixPrices(db.kysely, DEPLOYMENT))
    .filter((p) => p.channel === 'sms')
    .map((p) => p.prefix);
  return config.SMS_COUNTRY_CODES.split(',').filter(
    (code) => code !== PRICED_BY_DEFAULT && !prefixes.some((prefix) => code.startsWith(prefix)),
  );
}

/** The doctor's line about them: a warning naming each code and the command that prices it. */
export async function pricesOutcome(db: Db, config: Pick<Config, 'SMS_COUNTRY_CODES'>) {
  const unpriced = await unpricedCountryCodes(db, config);
  if (unpriced.length === 0) return { status: 'ok' as const, detail: 'every accepted country code has an SMS price' };
  return {
    status: 'warn' as const,
    detail:
      `SMS_COUNTRY_CODES accepts ${unpriced.join(', ')} with no SMS price: their messages cost the default SMS price ` +
      `(Mexico's). Set one per code (mensajero prices set --channel sms --prefix ${unpriced[0]} --credits N), or ` +
      `remove the code from SMS_COUNTRY_CODES`,
  };
}
