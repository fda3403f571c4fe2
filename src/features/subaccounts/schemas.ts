import { z } from 'zod';
import { emailAddress, integer, text, withinCodePoints } from '../../http/fields.js';

const MAX_TRANSFER = 100_000_000;
const codePoints = (s: string) => [...s].length;

// A control character makes the address malformed (subaccount_04), not absent.
const Email = text('subaccount_02', undefined, 'subaccount_04').pipe(
  z
    .string()
    .min(1, { error: 'subaccount_02', abort: true })
    .pipe(emailAddress({ max: 70, tooLong: 'subaccount_03', invalid: 'subaccount_04' })),
);

export const AddBody = z.object({
  email: Email,
  password: text('subaccount_05').pipe(
    z
      .string()
      .min(1, { error: 'subaccount_05' })
      .refine((s) => withinCodePoints(s, 36) && codePoints(s) >= 6, { error: 'subaccount_06' }),
  ),
});
export const EmailBody = z.object({ email: Email });
export const ManageBody = z.object({
  email: Email,
  type: integer('subaccount_10').pipe(z.union([z.literal(1), z.literal(2)], { error: 'subaccount_10' })),
  credits: integer('subaccount_11').pipe(
    z.number().min(1, { error: 'subaccount_11' }).max(MAX_TRANSFER, { error: 'subaccount_11' }),
  ),
});
