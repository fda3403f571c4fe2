import { z } from 'zod';
import { integer, text } from '../../http/fields.js';

const CONTROL = /\p{Cc}/u;

/** A required name: trimmed, 1 to 100 characters, no control characters; `code` when missing or broken. */
export const name = (code: string) =>
  text(code).pipe(
    z
      .string()
      .trim()
      .min(1, { error: code })
      .max(100, { error: code })
      .refine((s) => !CONTROL.test(s), { error: code }),
  );

/** A phone number of exactly 10 digits. */
export const tenDigits = (code: string) =>
  text(code).pipe(
    z
      .string()
      .trim()
      .regex(/^\d{10}$/, { error: code }),
  );

/** A usertool_id: a positive integer (ids beyond 2^53 or below 1 name nobody). */
export const staffId = (code: string) =>
  integer(code).pipe(z.number().int().min(1, { error: code }).max(Number.MAX_SAFE_INTEGER, { error: code }));

export const Envelope = { success: z.boolean(), message: z.string(), status: z.number(), code: z.string() };

/** The same array under the name the official assistant-tool server reads (wallets, loyalty_cards, contacts). */
export const toolCopy = (item: z.ZodType) =>
  z.array(item).describe('the same items as result, under the name the official assistant-tool server reads');
