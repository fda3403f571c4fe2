import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * Splits a full international number (digits only, no '+') into its country
 * calling code and national number, from libphonenumber's metadata.
 * Returns null when no country code is recognised.
 */
export function splitCountryCode(digits: string): { countryCode: string; national: string } | null {
  if (!/^\d{8,15}$/.test(digits)) return null;
  const parsed = parsePhoneNumberFromString(`+${digits}`);
  if (!parsed?.countryCallingCode) return null;
  return { countryCode: parsed.countryCallingCode, national: parsed.nationalNumber };
}
