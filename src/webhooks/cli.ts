import type { Command } from 'commander';
import { PARENT_OPTION, requireAccount } from '../cli/helpers.js';
import { shownEmail } from '../accounts/subaccount-email.js';
import { CliError, type CliRunner } from '../cli/runner.js';
import { formatLocal } from '../lib/time.js';
import type { BaseContext } from '../context.js';
import { listEvents, redeliver as redeliverChecked, rotateWebhookSecret, webhookSecret } from './service.js';
import { ApiError } from '../http/errors.js';

/** Validated inside the action, so that a bad value still prints one JSON object with --json. */
const positiveInt = (v: unknown, option: string) => {
  const n = Number(v);
  if (!/^\d+$/.test(String(v)) || !Number.isSafeInteger(n) || n < 1)
    throw new CliError(`${option} must be a positive integer (got ${String(v)})`);
  return n;
};

const local = (ms: number | null) => (ms === null ? null : formatLocal(ms));

/** `mensajero webhooks secret` and `mensajero events list|redeliver`. */
export function webhookCommands(program: Command, run: CliRunner): void {
  const webhooks = program.command('webhooks').description('webhook signing secrets');
  webhooks
    .command('secret')
    .description('show (or with --rotate replace) the Standard Webhooks signing secret of an account')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option('--rotate', 'replace the secret; deliveries from now on are signed with the new one')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const account = await requireAccount(ctx, o.email, o.parent);
          const key = ctx.secrets.webhookEncryption;
          const secret = o.rotate
            ? await rotateWebhookSecret(ctx.db.kysely, key, account.id)
            : await webhookSecret(ctx.db.kysely, key, account.id);
          return { email: shownEmail(account.email), secret, rotated: Boolean(o.rotate) };
        },
        (r) => `${r.rotated ? 'new ' : ''}webhook signing secret of ${r.email}: ${r.secret}`,
      ),
    );

  const events = program.command('events').description('webhook events: delivery log and replay');
  events
    .command('list')
    .description("an account's latest events with every delivery attempt")
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option('--failed', 'only events that failed after every retry')
    .option('--limit <n>', 'how many events (newest first)', '50')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const account = await requireAccount(ctx, o.email, o.parent);
          const limit = Math.min(positiveInt(o.limit, '--limit'), 1000);
          const rows = await listEvents(ctx.db.kysely, account.id, { failedOnly: Boolean(o.failed), limit });
          return {
            email: shownEmail(account.email),
            events: rows.map(({ event: e, attempts }) => ({
              id: e.id,
              type: e.type,
              reference: e.reference,
              state: e.state,
              attempts: e.attempts,
              created_at: local(e.created_at),
              delivered_at: local(e.delivered_at),
              next_attempt_at: local(e.next_attempt_at),
              last_status: e.last_status,
              last_error: e.last_error,
              payload: JSON.parse(e.payload) as Record<string, string>,
              log: attempts.map((a) => ({
                at: local(a.attempted_at),
                method: a.method,
                http_status: a.http_status,
                duration_ms: a.duration_ms,
                error: a.error,
              })),
            })),
          };
        },
        (r) => humanList(r.events),
      ),
    );

  events
    .command('redeliver')
    .description('send an event again now (a new round of retries); the running service delivers it')
    .requiredOption('--id <id>', 'event id (from events list)')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        (ctx) => redeliver(ctx, positiveInt(o.id, '--id')),
        (r) => `event ${r.id} (${r.reference}) queued for delivery`,
      ),
    );
}

async function redeliver(ctx: BaseContext, id: number) {
  try {
    const event = await redeliverChecked(ctx, id);
    return { ...event, state: 'pending' };
  } catch (err) {
    throw err instanceof ApiError ? new CliError(err.message) : err;
  }
}

function humanList(
  events: Array<{
    id: number;
    type: string;
    reference: string;
    state: string;
    attempts: number;
    created_at: string | null;
    last_status: number | null;
    last_error: string | null;
  }>,
): string {
  if (events.length === 0) return 'no events';
  return events
    .map(
      (e) =>
        `${e.id}\t${e.created_at}\t${e.type}\t${e.reference}\t${e.state}\tattempts ${e.attempts}${e.last_status !== null ? `\tHTTP ${e.last_status}` : ''}${e.last_error ? `\t${e.last_error}` : ''}`,
    )
    .join('\n');
}
