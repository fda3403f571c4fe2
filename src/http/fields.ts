import { z } from 'zod';
import { isStorable } from '../text/storable.js';
import { isEmailAddress } from '../text/email.js';

/**
 * Field types for request schemas. Form bodies and query strings carry
 * strings while JSON clients send numbers and booleans: each helper accepts
 * both and yields one type. The `missing`/`invalid` arguments are the spec's
 * codes for an absent and a malformed value.
 */
const toText = (v: unknown) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v);

/**
 * What the helpers accept, for the OpenAPI document (jsonSchema below): a
 * client that validates its requests against it (Ajv, typed clients) must
 * find every form the service takes, form bodies and query strings included,
 * where every value is text.
 */
export const ACCEPTED = {
  text: () => ({ type: ['string', 'number', 'boolean'] }),
  optionalText: () => ({ type: ['string', 'number', 'boolean', 'null'] }),
  integerText: () => ({ type: 'string', pattern: '^\\s*-?\\d+\\s*$' }),
  numberText: () => ({ type: 'string', pattern: '^\\s*[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?\\s*$' }),
  flag: () => ({
    anyOf: [
      { type: 'string', enum: ['0', '1', ''] },
      { type: 'integer', enum: [0, 1] },
      { type: 'boolean' },
      { type: 'null' },
    ],
  }),
  bool: () => ({
    anyOf: [
      { type: 'boolean' },
      { type: 'string', enum: ['true', 'false', '1', '0'] },
      { type: 'integer', enum: [0, 1] },
    ],
  }),
};

/** An integer as a JSON number or as text, with the bounds the validator applies. */
export const integerForms = (bounds: { minimum?: number; maximum?: number } = {}) => ({
  anyOf: [{ type: 'integer', ...bounds }, ACCEPTED.integerText()],
});

const codeFor = (missing: string | undefined, invalid: string | undefined) => (iss: { input?: unknown }) =>
  iss.input === undefined || iss.input === null ? missing : invalid;

/**
 * A string; numbers and booleans are turned into text. Characters no database
 * or carrier takes (src/text/storable.ts) answer `unstorable` (default: the
 * invalid code, else the missing one).
 */
export const text = (missing?: string, invalid?: string, unstorable = invalid ?? missing) =>
  z
    .preprocess(
      toText,
      z.string({ error: codeFor(missing, invalid ?? missing) }).refine(isStorable, { error: unstorable }),
    )
    .meta(ACCEPTED.text());

/** An optional string: absent, null and '' become undefined. */
export const optionalText = (invalid?: string) =>
  z
    .preprocess(
      (v) => (v === null || v === '' ? undefined : toText(v)),
      z.string({ error: invalid }).refine(isStorable, { error: invalid }).optional(),
    )
    .meta(ACCEPTED.optionalText());

/** At most `max` characters (code points), without spreading a long text into an array. */
export const withinCodePoints = (s: string, max: number): boolean =>
  s.length <= max || (s.length <= 2 * max && [...s].length <= max);

/**
 * An email address (src/text/email.ts). Its length is checked first and
 * aborts: zod otherwise runs every check, and nothing but the length should
 * ever read a value of a megabyte.
 */
export const emailAddress = (o: { max: number; tooLong: string; invalid: string }) =>
  z
    .string()
    .refine((s) => withinCodePoints(s, o.max), { error: o.tooLong, abort: true })
    .refine(isEmailAddress, { error: o.invalid });

/** An integer given as a number or a numeric string. */
export const integer = (missing?: string, invalid?: string) =>
  z
    .preprocess(
      (v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v),
      z.number({ error: codeFor(missing, invalid ?? missing) }).int({ error: invalid ?? missing }),
    )
    .meta(integerForms());

/** A number given as a number or a numeric string. */
export const numeric = (missing?: string, invalid?: string) =>
  z
    .preprocess(
      (v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
      z.number({ error: codeFor(missing, invalid ?? missing) }),
    )
    .meta({ anyOf: [{ type: 'number' }, ACCEPTED.numberText()] });

/** A '0'/'1' flag: accepts 0, 1, '0', '1', true, false. Absent (or null, '') means `fallback`. */
export const flag = (invalid?: string, fallback: 0 | 1 = 0) =>
  z
    .preprocess(
      (v) =>
        v === undefined || v === null || v === ''
          ? undefined
          : v === true || v === '1' || v === 1
            ? 1
            : v === false || v === '0' || v === 0
              ? 0
              : v,
      z.union([z.literal(0), z.literal(1)], { error: invalid }).default(fallback),
    )
    .meta(ACCEPTED.flag());

/** A boolean: true/false, 1/0, 'true'/'false', '1'/'0'. */
export const bool = (invalid?: string) =>
  z
    .preprocess(
      (v) => (v === 'true' || v === '1' || v === 1 ? true : v === 'false' || v === '0' || v === 0 ? false : v),
      z.boolean({ error: invalid }),
    )
    .meta(ACCEPTED.bool());

/** Keywords that say what a value is: a `.meta()` giving `type` or `anyOf` replaces those zod generated. */
const SHAPE_KEYWORDS = [
  'type',
  'anyOf',
  'oneOf',
  'allOf',
  'enum',
  'const',
  'items',
  'properties',
  'required',
  'additionalProperties',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
];

/** Whether a field may be left out: its schema accepts an absent value (a default, or a preprocess that fills one in). */
function mayBeAbsent(schema: z.ZodType | undefined): boolean {
  try {
    return schema !== undefined && schema.safeParse(undefined).success;
  } catch {
    return false;
  }
}

/**
 * JSON Schema for OpenAPI from a zod schema (the input side: what clients
 * send). A field's `.meta()` describes what it accepts when zod cannot (a
 * preprocess turning '1' into 1): it replaces the generated shape instead
 * of being merged into it, which could describe a value no request can be
 * (`type: string` with `anyOf` numbers). `required` lists only the fields
 * whose absence is refused, so defaulted ones are optional.
 */
export function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const out = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override(ctx) {
      const json = ctx.jsonSchema as Record<string, unknown>;
      const meta = ctx.zodSchema instanceof z.ZodType ? ctx.zodSchema.meta() : undefined;
      if (meta && ('type' in meta || 'anyOf' in meta)) {
        for (const k of SHAPE_KEYWORDS)
          if (!(k in meta) && !(k === 'required' && meta.type === 'object')) delete json[k];
      }
      if (ctx.zodSchema instanceof z.ZodObject) {
        const shape = ctx.zodSchema.shape as Record<string, z.ZodType>;
        const required = Object.keys(shape).filter((k) => !mayBeAbsent(shape[k]));
        if (required.length > 0) json.required = required;
        else delete json.required;
      }
    },
  }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}
