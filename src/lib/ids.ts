import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/**
 * Unguessable identifiers that are still time-ordered, so indexes on hot
 * insert paths grow at their right edge (docs/contributors/performance.md, "Identifiers on hot insert paths").
 */
export const timeOrderedId = (): string => uuidv7().replaceAll('-', '');

/** A random URL-safe token of `bytes` bytes of entropy. */
export const randomToken = (bytes = 16): string => randomBytes(bytes).toString('base64url');

export { v4 as uuid } from 'uuid';
