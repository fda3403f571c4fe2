import { z } from 'zod';
import { emailAddress, optionalText, text } from '../../http/fields.js';

/** A required, non-blank string: absent, null, '' and blanks answer `missing`; a value that is not text, `invalid` (default: `missing`). */
export const required = (missing: string, invalid = missing) =>
  text(missing, invalid).pipe(z.string().trim().min(1, { error: missing }));

/** Optional free text of at most `max` characters (`tooLong` otherwise; the generic invalid_request when not given). */
export const freeText = (max: number, tooLong?: string) =>
  optionalText(tooLong).pipe(z.string().max(max, { error: tooLong }).optional());

/** Optional email: at most 100 characters (contact_06), valid format (contact_05). */
export const email = () =>
  optionalText('contact_05').pipe(emailAddress({ max: 100, tooLong: 'contact_06', invalid: 'contact_05' }).optional());

/** Any value: a string is kept, anything else counts as absent (for fields whose bad values are ignored, not refused). */
export const lenientText = () =>
  z
    .unknown()
    .optional()
    .transform((v) => (typeof v === 'string' ? v : undefined))
    .meta({ type: 'string' });
