import type { z } from 'zod';
import { ApiError } from './errors.js';
import { messageFor } from './codes.js';
import { unstorablePath } from '../text/storable.js';

const CODE = /^[a-z][a-z0-9_]*$/;

/**
 * Parses input with a zod schema whose error messages are the spec's codes
 * (`z.string({ error: 'contact_01' }).max(100, { error: 'contact_04' })`).
 * A rule without its own code answers `fallbackCode`, and so does a string
 * field with a character no database takes that its schema let through.
 * Always a 400, never a 500.
 */
export function parse<S extends z.ZodType>(schema: S, input: unknown, fallbackCode = 'invalid_request'): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) {
    // Fields whose schema has no text helper: NUL and the like still never reach the database.
    const bad = unstorablePath(result.data);
    if (bad !== null)
      throw new ApiError(
        400,
        fallbackCode,
        `${bad ? `${bad}: ` : ''}contains a character that cannot be stored (NUL or another control character)`,
        bad ? { field: bad } : {},
      );
    return result.data;
  }
  const issue = result.error.issues[0];
  const field = issue.path.join('.');
  const code = CODE.test(issue.message) ? issue.message : fallbackCode;
  const text = CODE.test(issue.message) ? messageFor(code) : `${field ? `${field}: ` : ''}${issue.message}`;
  throw new ApiError(400, code, text, field ? { field } : {});
}
