import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { requestValidator } from '../../test/helpers/openapi-requests.js';
import { bool, flag, integer, jsonSchema, numeric, optionalText, text } from './fields.js';

/** JSON values clients send, loose forms included. */
const SAMPLES: unknown[] = [
  '5512345678',
  52,
  '52',
  '+52',
  '',
  ' 12 ',
  '-3',
  -3,
  2,
  1,
  0,
  '1',
  '0',
  '1.5',
  1.5,
  '1e3',
  'true',
  'false',
  true,
  false,
  'abc',
  null,
  [],
  ['1'],
  {},
];

const HELPERS: Record<string, z.ZodType> = {
  text: text('missing'),
  optionalText: optionalText('invalid'),
  integer: integer('missing'),
  numeric: numeric('missing'),
  flag: flag('invalid'),
  bool: bool('invalid'),
};

/**
 * The document a field helper gives (jsonSchema) allows exactly the JSON
 * types and forms the helper takes: an Ajv-validating or typed client is
 * never refused what the service accepts, nor told a value passes that it
 * refuses for its type.
 */
describe('field helpers and their JSON Schema agree on every sample', () => {
  for (const [name, helper] of Object.entries(HELPERS)) {
    it(name, () => {
      const schema = z.object({ f: helper });
      const doc = {
        paths: { '/x': { post: { requestBody: { content: { 'application/json': { schema: jsonSchema(schema) } } } } } },
      };
      const check = requestValidator(doc);
      const disagreements = SAMPLES.filter(
        (v) => schema.safeParse({ f: v }).success !== (check('post', '/x', { json: { f: v } }).length === 0),
      );
      expect(disagreements.map((v) => JSON.stringify(v))).toEqual([]);
    });
  }
});
