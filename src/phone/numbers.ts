import { parsePhoneNumberFromString, validatePhoneNumberLength } from 'libphonenumber-js/max';

/**
 * The default country codes (Mexico, NANP, Colombia), whose national numbers
 * are 10 digits: for them the rule is exactly 10 digits, as it always was.
 */
export const TEN_DIGIT_CODES: ReadonlySet<string> = new Set(['52', '1', '57']);

/**
 * Whether `national` (digits, without country code or trunk prefix) has the
 * length of its country's numbers: 10 digits for TEN_DIGIT_CODES, otherwise
 * a length libphonenumber's metadata gives the country (`612345678` for 34).
 * The one length rule of numbers written with a country code apart.
 */
export function hasNationalLength(countryCode: string, national: string): boolean {
  if (TEN_DIGIT_CODES.has(countryCode)) return /^\d{10}$/.test(national);
  if (!/^\d{4,14}$/.test(national) || !/^[1-9]\d{0,3}$/.test(countryCode)) return false;
  try {
    return validatePhoneNumberLength(national, { defaultCallingCode: countryCode }) === undefined;
  } catch {
    return false; // a calling code the metadata does not know
  }
}

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

/**
 * country_code as clients write it: `52`, `+52`, `052`, `0052` (spaces
 * allowed) all mean `52`, and the same forms of every code. Anything else
 * comes back trimmed, for the caller's own validation to refuse.
 */
export function cleanCountryCode(raw: string): string {
  const m = /^\+?0{0,2}([1-9]\d{0,3})$/.exec(raw.replace(/\s+/g, ''));
  return m ? m[1] : raw.trim();
}

/**
 * Mexico's old dialling forms, still in address books and CRMs: `044`/`045` (the mobile prefixes dialled before
 * 2019, local and long distance) and `52 1` (the international mobile form) before the 10-digit number.
 */
const OLD_MEXICAN_FORM = /^(?:\+?521|(?:\+52)?04[45])(\d{10})$/;

/** The 10-digit national number of a number written in one of Mexico's old forms (separators dropped), else undefined. */
export const oldMexicanForm = (cleaned: string): string | undefined => OLD_MEXICAN_FORM.exec(cleaned)?.[1];

const withoutSeparators = (raw: string) => raw.trim().replace(/[\s\-.()]/g, '');

/**
 * A phone number as clients write it: spaces, dashes, dots and parentheses
 * are dropped (`55 1234-5678` → `5512345678`). A leading `+` is kept: it
 * says the number is written with its country code (see splitWritten).
 * Mexico's old forms (`044 55 1234 5678`, `045…`, `521…`, `+52 1…`) become
 * the Mexican number written with its country code (`+525512345678`).
 */
export function cleanNumber(raw: string): string {
  const cleaned = withoutSeparators(raw);
  const mexican = oldMexicanForm(cleaned);
  return mexican ? `+52${mexican}` : cleaned;
}

/**
 * cleanNumber for a field that takes the national number apart from its country code (OTP's `phone_number`, a
 * payment link's `number`): Mexico's old forms become the 10-digit national number.
 */
export function cleanNationalNumber(raw: string): string {
  const cleaned = withoutSeparators(raw);
  return oldMexicanForm(cleaned) ?? cleaned;
}

/** A cleaned number → its digits, and whether it was written internationally (`+52…`). */
export function splitWritten(cleaned: string): { digits: string; international: boolean } {
  return cleaned.startsWith('+')
    ? { digits: cleaned.slice(1), international: true }
    : { digits: cleaned, international: false };
}
