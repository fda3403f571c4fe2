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

const MEXICAN_TYPES = new Set(['FIXED_LINE', 'MOBILE', 'FIXED_LINE_OR_MOBILE']);
const mexicanAreaCodes = new Map<string, boolean>();

/**
 * Whether a 10-digit Mexican national number belongs to a geographic area
 * code of the numbering plan (libphonenumber's metadata), so it can take an
 * SMS. Toll-free, premium and other non-geographic ranges do not. The
 * metadata's Mexican patterns depend only on the first three digits (then
 * any seven), so the answer is memoised per three-digit prefix: parsing 500
 * numbers per request would otherwise cost more than storing them.
 */
export function isMexicanAreaCode(national: string): boolean {
  if (!/^\d{10}$/.test(national)) return false;
  const prefix = national.slice(0, 3);
  let valid = mexicanAreaCodes.get(prefix);
  if (valid === undefined) {
    const type = parsePhoneNumberFromString(`+52${prefix}5551234`)?.getType();
    valid = type !== undefined && MEXICAN_TYPES.has(type);
    mexicanAreaCodes.set(prefix, valid);
  }
  return valid;
}
