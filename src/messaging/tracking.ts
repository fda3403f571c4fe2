import { z } from 'zod';
import type { WithConfig, WithDb } from '../context.js';
import type { Executor } from '../db/engine.js';
import { normaliseHttpUrl, redirectTarget } from '../http/redirect.js';
import { defineMessages } from '../http/codes.js';
import { integer } from '../http/fields.js';
import { randomToken } from '../lib/ids.js';

defineMessages({
  read_confirmation_01:
    'read_confirmation must be an object with url (http or https, at most 2048 characters) and an optional integer contact',
});

/**
 * The read_confirmation parameter of SMS and chat-app sends: `url` (where the
 * reader lands) and an optional `contact` id. Form bodies and query strings
 * carry it as a JSON string; JSON bodies as an object.
 */
export const ReadConfirmation = z
  .preprocess(
    (v) => {
      if (typeof v !== 'string') return v;
      try {
        return JSON.parse(v);
      } catch {
        return v;
      }
    },
    z.object(
      {
        // Stored normalised (new URL().href), so the redirect's Location header is always valid.
        url: z
          .string({ error: 'read_confirmation_01' })
          .max(2048, { error: 'read_confirmation_01' })
          .transform(
            (u, issue) =>
              normaliseHttpUrl(u) ?? (issue.addIssue({ code: 'custom', message: 'read_confirmation_01' }), z.NEVER),
          ),
        contact: integer(undefined, 'read_confirmation_01').optional(),
      },
      { error: 'read_confirmation_01' },
    ),
  )
  .optional();

export type ReadConfirmationInput = { url: string; contact?: number };

/** A fresh tracking token per recipient (72 bits: unguessable, short enough for an SMS). */
export const newReadTokens = (count: number): string[] => Array.from({ length: count }, () => randomToken(9));

/** The link appended to a message: opening it records the read. */
export const readLink = (ctx: WithConfig, token: string): string => `${ctx.config.publicBaseUrl}/r/${token}`;

/** Stores the tokens of sent messages, inside the transaction that created them. */
export async function recordReadTrackings(
  trx: Executor,
  accountId: number,
  rc: ReadConfirmationInput,
  entries: Array<{ token: string; messageId: number }>,
): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < entries.length; i += 500) {
    await trx
      .insertInto('read_trackings')
      .values(
        entries.slice(i, i + 500).map((e) => ({
          token: e.token,
          account_id: accountId,
          message_id: e.messageId,
          url: rc.url,
          contact_id: rc.contact ?? null,
          created_at: now,
          first_read_at: null,
          last_read_at: null,
        })),
      )
      .execute();
  }
}

/**
 * Opens a read-confirmation link (GET /r/{token}): records the read (first and latest time, count) unless `count` is
 * false (HEAD: link previews, mail scanners), and gives the address to redirect to; undefined for no such link.
 */
export async function followReadLink(ctx: WithDb, token: string, count: boolean): Promise<string | undefined> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(token)) return undefined;
  const row = count ? await recordRead(ctx.db.kysely, token, Date.now()) : await findRead(ctx.db.kysely, token);
  return row ? redirectTarget(row.url) : undefined;
}

async function findRead(db: Executor, token: string): Promise<{ url: string } | undefined> {
  return db.selectFrom('read_trackings').select('url').where('token', '=', token).executeTakeFirst();
}

/** One read: first and latest time, count (one UPDATE). */
async function recordRead(db: Executor, token: string, now: number): Promise<{ url: string } | undefined> {
  return db
    .updateTable('read_trackings')
    .set((eb) => ({
      reads: eb('reads', '+', 1),
      last_read_at: now,
      first_read_at: eb.fn.coalesce('first_read_at', eb.val(now)),
    }))
    .where('token', '=', token)
    .returning('url')
    .executeTakeFirst();
}
