import { z } from 'zod';
import { integer, optionalText, text } from '../../http/fields.js';
import { defineMessages } from '../../http/codes.js';

defineMessages({
  optout_01: 'optouts_found',
  optout_02: 'optouts_added',
  optout_03: 'optouts_removed',
  optout_04: 'numbers is required: comma-separated numbers, 10 digits each or with their country code',
  optout_05: 'A number is malformed: 10 digits, or the full number with its country code (+ and 11 to 15 digits)',
  optout_06: 'country_code is 1 to 3 digits',
  optout_07: `At most ${10_000} numbers a request`,
  optout_08: 'page is a whole number from 1',
  optout_09: 'The opt-out list is full: these numbers would take it past its limit',
  optout_10: 'after is the full number of an entry on the list (the last of the previous page), without page',
});

/** Numbers one POST or DELETE may carry (the panel's CSV import has its own bound). */
export const MAX_NUMBERS = 10_000;

/** Entries a page of GET /optouts. */
export const PAGE_SIZE = 100;

const MAX_PAGE = 1_000_000;

export const NumbersBody = z.object({
  numbers: text('optout_04')
    .pipe(z.string().max(MAX_NUMBERS * 20, { error: 'optout_07' }))
    .describe('comma-separated: 10 digits (with country_code), or +<country code><number>'),
  country_code: optionalText('optout_06')
    .pipe(
      z
        .string()
        .regex(/^\+?\d{1,3}$/, { error: 'optout_06' })
        .optional(),
    )
    .describe('the country code of 10-digit numbers; default 52'),
});

export const PageQuery = z
  .object({
    page: z
      .preprocess((v) => (v === undefined || v === '' ? undefined : v), integer('optout_08').optional())
      .pipe(z.number().min(1, { error: 'optout_08' }).max(MAX_PAGE, { error: 'optout_08' }).optional())
      .describe('page number, from 1 (100 entries a page)'),
    after: optionalText('optout_10')
      .pipe(
        z
          .string()
          .regex(/^\d{11,15}$/, { error: 'optout_10' })
          .optional(),
      )
      .describe('the number of the last entry of the previous page: the page right after it, however deep'),
  })
  .refine((q) => q.page === undefined || q.after === undefined, { error: 'optout_10' });

const envelope = { success: z.boolean(), message: z.string(), status: z.number(), code: z.string() };

export const ListReply = z.object({
  ...envelope,
  optouts: z.array(
    z.object({
      number: z.string(),
      source: z.enum(['keyword', 'api', 'panel']),
      created_at: z.string().describe('YYYY-MM-DD HH:MM:SS, Mexico City'),
    }),
  ),
});

export const AddedReply = z.object({ ...envelope, added: z.number().describe('numbers that were not on the list') });
export const RemovedReply = z.object({ ...envelope, removed: z.number().describe('numbers that were on the list') });
