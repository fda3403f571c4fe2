import { normalEmail } from '../text/email.js';

/**
 * A sub-account's email is unique among its parent's sub-accounts only, so
 * creating one never reveals that an email exists in another tenant. It is
 * stored as `<parent id> <email>`: no real email contains a space, so it
 * cannot collide with a top-level account's email or another parent's
 * sub-account. A column of its own (unique with parent_id) would be cleaner,
 * but accounts.email carries an inline UNIQUE that SQLite can only drop by
 * rebuilding the accounts table, which every other table references.
 * The operator's CLI names a sub-account `--email <email> --parent <parent
 * email>` (src/cli/helpers.ts: requireAccount); the stored form also works.
 */
export const subaccountEmailKey = (parentId: number, email: string): string => `${parentId} ${normalEmail(email)}`;

/** The email as the account holder wrote it (without the parent prefix). */
export const shownEmail = (stored: string): string => {
  const space = stored.indexOf(' ');
  return space < 0 ? stored : stored.slice(space + 1);
};
